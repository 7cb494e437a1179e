/**
 * What every mur command shares (docs/cli.md, "Help, version, completion" and "Colour"): -h/--help with the command's
 * own usage and exit 0, --version, did-you-mean, completion scripts, quiet on a closed pipe, colour for states only
 * where it is wanted, and untrusted text escaped whether or not there is colour.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { manifest, runMur, spawnMur } from './support/client-cli.js';
import { type DoorProcess, MUR_CLI, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';

const home = tempDir('home');
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

// Each check is its own mur process and reads nothing another writes: they run four at a time.
describe('help and version', { concurrency: 4 }, () => {
  const commands: [string[], RegExp][] = [
    [['run'], /^usage: mur run \[DIR\]/],
    [['run', '--roster', 'roster.yaml'], /^usage: mur run --roster roster\.yaml/],
    [['demo'], /^usage: mur demo /],
    [['console'], /^usage: mur console /],
    [['token'], /^usage: mur token /],
    [['ps'], /^usage: mur ps /],
    [['watch'], /^usage: mur watch /],
    [['cancel'], /^usage: mur cancel /],
    [['stop'], /^usage: mur stop /],
    [['control'], /^usage: mur control /],
    [['completion'], /^usage: mur completion bash\|zsh\|fish/],
    [['pack'], /^usage: mur pack DIR /],
    [['publish'], /^usage: mur publish ARCHIVE\|DIR /],
    [['pull'], /^usage: mur pull NAME\[@VERSION\] /],
    [['list'], /^usage: mur list /],
    [['remove'], /^usage: mur remove NAME /],
  ];
  for (const [command, usage] of commands) {
    for (const flag of ['--help', '-h']) {
      test(`mur ${command.join(' ')} ${flag}: its own usage on stdout, exit 0, nothing run`, async () => {
        const result = await runMur([...command, flag], home);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, usage);
        assert.equal(result.stderr, '');
      });
    }
  }

  test('mur --version, -V and version print the version and what runs it', async () => {
    for (const args of [['--version'], ['-V'], ['version']]) {
      const result = await runMur(args, home);
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `mur ${VERSION} (node ${process.version}, ${process.platform}-${process.arch})\n`);
    }
  });

  test('a mistyped command: exit 2, the nearest command suggested; nothing near, no suggestion', async () => {
    const typo = await runMur(['wacth'], home);
    assert.equal(typo.code, 2);
    assert.equal(typo.stderr, "mur: unknown command 'wacth'; did you mean 'mur watch'? (mur --help lists the commands)\n");
    const prefix = await runMur(['cance'], home);
    assert.match(prefix.stderr, /did you mean 'mur cancel'\?/);
    const far = await runMur(['frobnicate'], home);
    assert.equal(far.code, 2);
    assert.equal(far.stderr, "mur: unknown command 'frobnicate'; mur --help lists the commands\n");
  });

  test('--help after -- is an argument, not a request for help', async () => {
    const result = await runMur(['ps', '--', '--help'], home);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /mur ps takes no arguments/);
  });
});

describe('completion', { concurrency: 4 }, () => {
  test('bash completes the commands and a command’s flags from its own usage', async () => {
    const script = (await runMur(['completion', 'bash'], home)).stdout;
    const run = (words: string[]) =>
      spawnSync(
        'bash',
        ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _mur; echo "\${COMPREPLY[*]}"`],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(run(['mur', 'wa']), 'watch');
    assert.equal(run(['mur', 'watch', '--to']), '--token');
    assert.equal(run(['mur', 'run', '--de']), '--deadline');
    // A harness capsule's flags of mur run (docs/harness.md) come from the same usage.
    assert.equal(run(['mur', 'run', '--fo']), '--forget-session');
    assert.equal(run(['mur', 'run', '--co']), '--context');
  });

  for (const shell of ['zsh', 'fish'] as const) {
    test(`${shell}: the script parses`, async (t) => {
      if (spawnSync('sh', ['-c', `command -v ${shell}`]).status !== 0) return t.skip(`${shell} is not installed here`);
      const file = path.join(tempDir('completion'), `mur.${shell}`);
      writeFileSync(file, (await runMur(['completion', shell], home)).stdout);
      const checked = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      assert.equal(checked.status, 0, checked.stderr);
    });
  }

  test('an unknown shell is a usage error', async () => {
    const result = await runMur(['completion', 'tcsh'], home);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^mur: mur completion takes one shell: bash, zsh or fish\nusage: mur completion/);
  });
});

describe('on a live door', () => {
  let door: DoorProcess;
  const SCRIPT = `
rules:
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: done
`;
  before(async () => {
    door = await runDoor(makeCapsule(manifest({ name: 'mannered' }), SCRIPT), [], home);
  });
  after(() => door?.stop('SIGKILL'));

  test('mur watch | head: a closed pipe ends mur quietly, exit 0, no stack trace', async () => {
    await send(door.url, 'say before');
    const piped = spawn('sh', ['-c', `"${process.execPath}" "${MUR_CLI}" watch ${door.sessionId} | head -1`], {
      env: { ...process.env, MURMUR_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    piped.stderr.on('data', (d) => (stderr += d));
    let stdout = '';
    piped.stdout.on('data', (d) => (stdout += d));
    // Once head has its line and is gone, the next event mur writes meets a closed pipe: events are sent until then
    // (what mur wrote before head left may all have fitted in the pipe, and a quiet watch writes nothing).
    const closed = new Promise((resolve) => piped.once('close', resolve));
    let ended = false;
    void closed.then(() => (ended = true));
    for (let i = 0; i < 40 && !ended; i++) {
      await send(door.url, `say after ${i}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const code = await closed;
    assert.equal(code, 0);
    assert.equal(stdout.split('\n').filter(Boolean).length, 1);
    assert.equal(stderr, '', 'no EPIPE stack trace');
  });

  test('colour: states painted under FORCE_COLOR, none through a pipe or under NO_COLOR; untrusted text escaped either way', async () => {
    await send(door.url, 'say \u001b[2Jplain');
    const watch = async (env: Record<string, string>) => {
      const mur = spawnMur(['watch', door.sessionId], home, env);
      await mur.waitFor(/plain/, 'the replay');
      await new Promise((resolve) => setTimeout(resolve, 300));
      mur.kill('SIGKILL');
      return mur.stdout();
    };
    const painted = await watch({ FORCE_COLOR: '1' });
    assert.ok(painted.includes('\u001b[32mcompleted\u001b[0m'), painted);
    assert.match(painted, /\\u001b\[2Jplain/, "the answer's escape sequence is shown, not acted on");
    const piped = await watch({});
    assert.ok(!piped.includes('\u001b'), 'a pipe gets no colour');
    const denied = await watch({ FORCE_COLOR: '', NO_COLOR: '1' });
    assert.ok(!denied.includes('\u001b'), 'NO_COLOR gets none');
  });
});
