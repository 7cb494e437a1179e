/**
 * The artifact paths on a real door against an attacker (docs/artifacts.md, "What an attacker can and cannot do"): a
 * hostile publisher's store through pull-artifact (a link then a file through it, YAML aliases, an entry out of the
 * folder, a regular expression in the input schema, a setuid entry), and the door's commands — run as root when the
 * test runs as root — against the stores, murmur.lock, the tools folder and a native tool's own folder. The unit-level
 * attacks sit beside their code: artifacts/archive-attacker.spec.ts, tools/artifacts/source-attacker.spec.ts,
 * tools/wasm/wasm-attacker.spec.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { gzTarOf, type TarEntry as Entry } from './support/hostile-tar.js';
import { nativeTool, projectStore, publishInto, writeLock } from './support/artifacts.js';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { OBEY, runAttempt } from './support/obey.js';
import { send } from './support/rpc.js';

const AS_ROOT = process.getuid?.() === 0;

/**
 * An archive's digest as docs/artifacts.md ("The digest") defines it, for its regular files and folders in path order:
 * `D <path>\n`, or `F <644|755> <size> <path>\n` and the bytes.
 */
function digestOf(entries: Entry[]): string {
  const hash = createHash('sha256');
  for (const { name, body, type, mode = 0o644 } of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (type === 'directory') hash.update(`D ${name.replace(/\/$/, '')}\n`);
    else {
      const bytes = Buffer.from(body ?? '');
      hash.update(`F ${mode & 0o111 ? '755' : '644'} ${bytes.length} ${name}\n`);
      hash.update(bytes);
    }
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Writes an archive of exactly `entries` into a store, beside a record of their digest (or of `digest`), followed by
 * `recordTail`: a hostile publisher's store, which mur publish would not have written.
 */
async function publishRaw(store: string, fullName: string, entries: Entry[], { digest = digestOf(entries), recordTail = '' } = {}): Promise<void> {
  const folder = path.join(store, ...fullName.split('/'));
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, '1.0.0.tgz'), await gzTarOf(entries));
  const record = { artifact: fullName, version: '1.0.0', digest, runtime: 'tool', implementation: 'native' };
  writeFileSync(path.join(folder, '1.0.0.yaml'), `${stringify(record)}${recordTail}`);
}

/** A YAML document whose aliases expand to 9^9 strings ("billion laughs"), under `key`. */
function laughs(key: string): string {
  const lines = [`${key}:`, '  l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i < 9; i++) lines.push(`  l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

const manifestText = (name: string, extra: Record<string, unknown> = {}) =>
  stringify({ name, version: '1.0.0', runtime: 'tool', implementation: 'native', description: `the ${name} tool`, entry: 'run', ...extra });

/** The entries of a native tool whose murmur.yaml is `manifest`, as mur pack would write them. */
const nativeEntries = (manifest: string, mode = 0o755): Entry[] => [
  { name: 'murmur.yaml', body: manifest },
  { name: 'run', body: '#!/bin/sh\necho ran\n', mode },
];

/** What the spy tool prints: who it runs as, where, with what, and whether it can change its own folder. */
const SPY = [
  'echo "RAN spy"',
  'echo "uid=$(id -u)"',
  'echo "cwd=$(pwd)"',
  'echo "fds=$(ls /proc/self/fd | tr "\\n" " ")"',
  'echo "env=$(env | cut -d= -f1 | sort | tr "\\n" " ")"',
  'touch /run/murmur/artifact/planted 2>/dev/null; echo "plant=$?"',
  'echo tampered >> /run/murmur/artifact/run 2>/dev/null; echo "entry=$?"',
  'echo "mode=$(stat -c %a /run/murmur/artifact/run)"',
].join('\n');

const SPY_RULE = `  - match: '^spy$'
    turns:
      - tools:
          - tool: spy
            input: {}
        answer: "{{tool.stdout}}"
  - match: '^pull (\\S+)$'
    turns:
      - tools:
          - tool: pull-artifact
            input: { artifact: "{{match.1}}" }
        answer: "{{tool.content}}"
`;

const DOOR_MANIFEST = `name: attacker-capsule
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: script
  script: script.yaml
  max_turns: 4
artifacts: [acme/spy]
capabilities:
  shell:
    allow: [bash]
  install:
    tool: ["acme/*"]
    skill: ["acme/*"]
`;

describe(`a hostile publisher and the commands, against a door running as ${AS_ROOT ? 'root' : 'its user'}`, () => {
  let door: DoorProcess;
  let globalStore: string;
  let outside: string;

  before(async () => {
    const capsule = makeCapsule(
      DOOR_MANIFEST,
      OBEY.replace('rules:\n', () => `rules:\n${SPY_RULE}`),
    );
    const home = tempDir('home');
    globalStore = path.join(home, 'store');
    const spy = await publishInto(projectStore(capsule), nativeTool('acme/spy', SPY));
    writeLock(capsule, { 'acme/spy': { version: '1.0.0', digest: spy.digest } });
    outside = tempDir('outside');
    await publishRaw(
      globalStore,
      'acme/linkfile',
      [
        { name: 'd', type: 'symlink', linkname: outside },
        { name: 'd/planted', body: 'pwned' },
      ],
      { digest: `sha256:${'0'.repeat(64)}` },
    );
    await publishRaw(globalStore, 'acme/bomb', [{ name: 'murmur.yaml', body: `${manifestText('acme/bomb')}${laughs('input_schema')}` }]);
    await publishRaw(globalStore, 'acme/recbomb', nativeEntries(manifestText('acme/recbomb')), { recordTail: laughs('wit') });
    await publishRaw(globalStore, 'acme/climb', nativeEntries(manifestText('acme/climb', { entry: '../../../../bin/sh' })));
    await publishRaw(globalStore, 'acme/absolute', nativeEntries(manifestText('acme/absolute', { entry: '/bin/sh' })));
    const redos = { type: 'object', properties: { text: { type: 'string', pattern: '^(a+)+$' } } };
    await publishRaw(globalStore, 'acme/redos', nativeEntries(manifestText('acme/redos', { input_schema: redos })));
    await publishRaw(globalStore, 'acme/suid', nativeEntries(manifestText('acme/suid'), 0o6755));
    door = await runDoor(capsule, [], home);
  });
  after(() => door?.stop());

  const toolsFolder = () => path.join(door.recordsDir, 'runtime', 'tools');
  const answerOf = async (text: string) => {
    const task = taskOf(await send(door.url, text));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    return task.artifacts[0].parts[0].text as string;
  };
  const pullRefused = async (name: string, why: RegExp) => {
    const text = await answerOf(`pull ${name}`);
    assert.match(text, why, text);
    const left = readdirSync(toolsFolder()).filter((f) => f.startsWith('.pull-') || f === name.split('/')[1]);
    assert.deepEqual(left, [], `${name}: nothing of the refused pull is left in the tools folder`);
  };

  test('an archive with a link, then a file through it, is refused before its digest, and nothing is written anywhere', async () => {
    await pullRefused('acme/linkfile', /not-fetched: the global store's archive of acme\/linkfile 1\.0\.0 failed a check: the archive holds "d", a symlink/);
    assert.deepEqual(readdirSync(outside), [], 'nothing was written where the link points');
  });

  test('a murmur.yaml of aliases (billion laughs) is refused as YAML that does not read, and the door goes on', async () => {
    await pullRefused('acme/bomb', /not-fetched: acme\/bomb 1\.0\.0 failed a check: .*not valid YAML: Excessive alias count/);
    await pullRefused('acme/recbomb', /not-fetched: the global store holds no record of acme\/recbomb 1\.0\.0 that reads/);
  });

  test("an entry out of the artifact's folder (../, absolute) is refused", async () => {
    await pullRefused('acme/climb', /not-fetched: acme\/climb 1\.0\.0 failed a check: .*entry.*a path inside the artifact folder, without \. or \.\. parts/);
    await pullRefused('acme/absolute', /not-fetched: acme\/absolute 1\.0\.0 failed a check: .*entry.*a path inside the artifact folder/);
  });

  test('an input schema holding a regular expression (a ReDoS on the door’s thread) is refused', async () => {
    await pullRefused(
      'acme/redos',
      /not-fetched: acme\/redos 1\.0\.0 failed a check: .*input_schema\.properties\.text\.pattern.*no pattern or patternProperties/,
    );
  });

  test('a setuid entry is installed 0755, owned by the door', async () => {
    assert.match(await answerOf('pull acme/suid'), /"tool_name":"suid"/);
    const stats = statSync(path.join(toolsFolder(), 'suid', 'run'));
    assert.equal(stats.mode & 0o7777, 0o755);
    assert.equal(stats.uid, process.getuid?.());
  });

  test('a command sees none of the stores, murmur.lock or the tools folder, and changes none of them', async () => {
    const places = [
      path.join(door.capsuleDir, 'murmur.lock'),
      projectStore(door.capsuleDir),
      globalStore,
      toolsFolder(),
      path.join(toolsFolder(), 'spy'),
      '/run/murmur/artifact',
    ];
    const hostFiles = new Map<string, Buffer>();
    for (const file of [
      path.join(door.capsuleDir, 'murmur.lock'),
      path.join(projectStore(door.capsuleDir), 'acme/spy/1.0.0.tgz'),
      path.join(globalStore, 'acme/bomb/1.0.0.yaml'),
      path.join(toolsFolder(), 'spy', 'run'),
    ])
      hostFiles.set(file, readFileSync(file));
    const probes = places.map((p, i) => `ls -d '${p}' >/dev/null 2>&1; echo "see${i}=$?"; touch '${p}/planted' 2>/dev/null; echo "write${i}=$?"`).join('; ');
    const text = await runAttempt(door, 'stores', `${probes}; ln -s '${toolsFolder()}' tools-link; ls tools-link/ 2>/dev/null; echo "link=$?"`);
    for (const [i, place] of places.entries()) {
      assert.match(text, new RegExp(`^see${i}=2$`, 'm'), `${place} is not there for a command: ${text}`);
      assert.match(text, new RegExp(`^write${i}=1$`, 'm'), `${place} cannot be written: ${text}`);
    }
    assert.match(text, /^link=2$/m, 'a link to the tools folder resolves inside the sandbox, where there is none');
    for (const [file, bytes] of hostFiles) assert.deepEqual(readFileSync(file), bytes, `${file} is unchanged`);
    for (const place of places.slice(0, 5)) assert.equal(existsSync(path.join(place, 'planted')), false);
  });

  test("a native tool runs as the commands do: the session's uid, the workdir, fds 0-2, the env allow-list; its folder read-only", async () => {
    const shell = await runAttempt(
      door,
      'shell',
      'echo "uid=$(id -u)"; echo "env=$(env | cut -d= -f1 | sort | tr "\\n" " ")"; echo "fds=$(ls /proc/self/fd | tr "\\n" " ")"',
    );
    const entryBefore = readFileSync(path.join(toolsFolder(), 'spy', 'run'));
    const spy = await answerOf('spy');
    assert.match(spy, /^RAN spy$/m, spy);
    const line = (text: string, key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(text)?.[1];
    assert.equal(line(spy, 'uid'), line(shell, 'uid'), 'the same uid as a command');
    assert.notEqual(line(spy, 'uid'), '0');
    if (AS_ROOT) assert.ok(Number(line(spy, 'uid')) >= 1_000_000_000, 'a root door runs it as the session’s own user');
    // What each shell sets for itself (bash's SHLVL and _) aside.
    const names = (text: string) =>
      line(text, 'env')
        ?.split(' ')
        .filter((n) => n !== '' && n !== 'SHLVL' && n !== '_');
    assert.deepEqual(names(spy), names(shell), 'the same environment names as a command');
    assert.ok(names(spy)?.includes('MURMUR_COMMAND_SESSION'));
    assert.equal(line(spy, 'fds'), line(shell, 'fds'), 'descriptors 0-2 only (and the one ls opens)');
    assert.equal(line(spy, 'cwd'), path.join(door.recordsDir, 'work'));
    assert.equal(line(spy, 'plant'), '1', 'its folder cannot be written');
    assert.match(line(spy, 'entry') ?? '', /^[12]$/, 'its entry cannot be changed (a redirection refused)');
    assert.equal(line(spy, 'mode'), '755');
    assert.deepEqual(readFileSync(path.join(toolsFolder(), 'spy', 'run')), entryBefore);
    assert.equal(existsSync(path.join(toolsFolder(), 'spy', 'planted')), false);
  });
});
