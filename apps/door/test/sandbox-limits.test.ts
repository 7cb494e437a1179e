/**
 * The door outlives anything a command does (docs/sandbox.md, "Resource limits"), and seed 004's stop holds inside the
 * sandbox ("Stopping a command"): real doors, real bash, the limits set low so the tests are quick.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { OBEY, runAttempt as run } from './support/obey.js';
import { send, waitFor } from './support/rpc.js';
import { lifecycleManifest, readTrace } from './support/tasks.js';

/** The host pids whose command line is exactly `argv`. */
function processesRunning(...argv: string[]): string[] {
  const wanted = `${argv.join('\u0000')}\u0000`;
  return readdirSync('/proc').filter((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8') === wanted;
    } catch {
      return false;
    }
  });
}

/** Whether this host lets the door make a memory cgroup (docs/sandbox.md: where it cannot, memory is not bounded). */
function memoryCgroupPossible(): boolean {
  const mounts = readFileSync('/proc/mounts', 'utf8');
  return process.getuid?.() === 0 && (/ cgroup \S+ \S*memory/.test(mounts) || / cgroup2 /.test(mounts));
}

/** The answer's text after the script's rule `content …`: the tool result exactly as the model read it. */
const CONTENT = [
  'rules:',
  "  - match: '^content ([\\s\\S]*)$'",
  '    turns:',
  '      - tools:',
  '          - tool: bash',
  '            input: { args: ["-c", "{{match.1}}"] }',
  '        answer: "{{tool.content}}"',
  ...OBEY.split('\n').slice(1),
].join('\n');

describe('resource limits: a command runs into them, the door runs on and says which', () => {
  let door: DoorProcess;

  before(async () => {
    const limits = ['    max_tmp_mib: 4', '    max_memory_mib: 64', '    max_workdir_mib: 8', '    max_file_mib: 1'].join('\n');
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }).replace('    allow: [bash]', `    allow: [bash]\n${limits}`), CONTENT));
  });

  after(() => door?.stop());

  const content = async (command: string): Promise<string> => {
    const task = taskOf(await send(door.url, `content ${command}`));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    return task.artifacts[0].parts[0].text;
  };

  test('/tmp is full at capabilities.shell.max_tmp_mib; the door is untouched', async () => {
    // Files under max_file_mib (1 MiB) each, until /tmp (4 MiB) is full.
    const text = await run(door, 'tmp', 'for i in 1 2 3 4 5 6; do head -c 1000000 /dev/zero > /tmp/f$i || echo "full at $i"; done; df -m /tmp | tail -1');
    assert.match(text, /No space left on device/);
    assert.match(text, /^full at 5$/m);
    assert.match(text, /^tmpfs\s+4\s/m);
  });

  test('a file past capabilities.shell.max_file_mib: SIGXFSZ ends the command, and its result says so', async () => {
    const text = await content('exec head -c 3000000 /dev/zero > big');
    assert.match(text, /Exit code: 153/);
    assert.match(text, /\nnote: the command wrote a file past capabilities\.shell\.max_file_mib \(1 MiB\): SIGXFSZ ended it$/);
  });

  test("memory past capabilities.shell.max_memory_mib: the kernel ends the command's process, never the door, and the result says so", async (t) => {
    if (!memoryCgroupPossible()) return t.skip('no memory cgroup can be made here (docs/sandbox.md: memory is then not bounded)');
    const text = await content('perl -e \'my $x = "a" x 400_000_000; print "survived\\n"\'; echo "perl=$?"');
    assert.doesNotMatch(text, /^survived$/m);
    assert.match(text, /perl=137/);
    assert.match(
      text,
      /\nnote: the session's commands passed capabilities\.shell\.max_memory_mib \(64 MiB\) while this command ran: the kernel ended a process of theirs$/,
    );
    // The door is alive, and its next task runs.
    assert.match(await run(door, 'after-oom', 'echo still-here'), /^still-here$/m);
    assert.ok(
      readTrace(door.recordsDir).some((r) => r.type === 'task_end'),
      'the task ended, recorded',
    );
  });

  test('the workdir growing past capabilities.shell.max_workdir_mib: the door ends the running command, and says so', async () => {
    // 40 MB over 16 s: past the 8 MiB bound after ~3 s, so the door's workdir check has ~13 s to end it even on a loaded machine.
    const text = await content('for i in $(seq 40); do head -c 1000000 /dev/urandom > grow-$i; sleep 0.4; done; echo wrote-them-all');
    assert.doesNotMatch(text, /^wrote-them-all$/m);
    assert.match(text, /\nnote: the workdir grew past capabilities\.shell\.max_workdir_mib \(8 MiB\): the door ended the session's running commands$/);
    // Over the bound, a command that removes files runs to its end.
    assert.match(await run(door, 'cleanup', 'rm -f grow-*; echo removed'), /^removed$/m);
  });

  test('the workdir bound against a child that ignores SIGTERM and holds the output: the shell ends, the child is killed, none is named as running on', async () => {
    // The shell ends at SIGTERM; its child outlives it until the door's SIGKILL 2 s later. Read 50 ms after the shell's
    // exit, it was named as a holder that "runs on until the session ends", though the door was ending it.
    const started = Date.now();
    const text = await content(
      "(trap '' TERM; exec sleep 60) & for i in $(seq 40); do head -c 1000000 /dev/urandom > grow-$i; sleep 0.4; done; echo wrote-them-all",
    );
    assert.doesNotMatch(text, /^wrote-them-all$/m);
    assert.match(text, /\nnote: the workdir grew past capabilities\.shell\.max_workdir_mib \(8 MiB\): the door ended the session's running commands$/);
    assert.doesNotMatch(text, /runs on until the session ends/, 'the door killed the child: it is not a holder');
    assert.ok(Date.now() - started < 30_000, `answered ${Date.now() - started} ms after the send`);
    assert.match(await run(door, 'cleanup-2', 'rm -f grow-*; echo removed'), /^removed$/m);
  });

  test('the workdir bound against a setsid child that ignores SIGTERM and holds the output: answered in bound, the child ended with the sandbox', async () => {
    // The escapee leaves the command's process group, so the group's signals miss it; the sandbox's PID namespace ends
    // with its init, and the call may not wait on what it cannot reach.
    const started = Date.now();
    const text = await content(
      'setsid bash -c "trap \'\' TERM; exec sleep 61" & for i in $(seq 40); do head -c 1000000 /dev/urandom > grow-$i; sleep 0.4; done; echo wrote-them-all',
    );
    assert.doesNotMatch(text, /^wrote-them-all$/m);
    assert.match(text, /\nnote: the workdir grew past capabilities\.shell\.max_workdir_mib \(8 MiB\): the door ended the session's running commands/);
    assert.ok(Date.now() - started < 30_000, `answered ${Date.now() - started} ms after the send`);
    await waitFor(async () => (processesRunning('sleep', '61').length === 0 ? true : undefined), 'the escapee to end with its sandbox');
    assert.match(await run(door, 'cleanup-3', 'rm -f grow-*; echo removed'), /^removed$/m);
  });

  test('the workdir bound against 200 children that ignore SIGTERM: the ending is bounded, every child is gone, the door answers', async () => {
    const started = Date.now();
    const text = await content(
      "for i in $(seq 200); do (trap '' TERM; exec sleep 62) & done; for i in $(seq 40); do head -c 1000000 /dev/urandom > grow-$i; sleep 0.4; done; echo wrote-them-all",
    );
    assert.doesNotMatch(text, /^wrote-them-all$/m);
    assert.match(text, /\nnote: the workdir grew past capabilities\.shell\.max_workdir_mib \(8 MiB\): the door ended the session's running commands/);
    assert.ok(Date.now() - started < 30_000, `answered ${Date.now() - started} ms after the send`);
    await waitFor(async () => (processesRunning('sleep', '62').length === 0 ? true : undefined), 'every child to end');
    assert.match(await run(door, 'cleanup-4', 'rm -f grow-*; echo removed'), /^removed$/m);
  });
});

describe("seed 004's stop inside the sandbox", () => {
  let door: DoorProcess;
  const call = (command: string) => `
    turns:
      - tools:
          - tool: bash
            input: { command: "${command}" }
      - tools:
          - tool: background-command
            input: { operation: stop, work_id: "{{tool.work_id}}" }
        answer: "{{tool.stdout}}"`;
  const script = `
rules:
  - match: '^ignores term'${call("trap '' TERM; sleep 30")}
  - match: '^traps term'${call("trap 'echo trapped; exit 0' TERM; while :; do sleep 0.1; done")}
  - match: '^escapes'${call('setsid sleep 319.5 < /dev/null > /dev/null 2>&1 & sleep 30')}
default:
  turns:
    - answer: no rule
`;

  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue', graceSecs: 0.5 }), script));
  });

  after(() => door?.stop());

  const stopped = async (text: string) => {
    const started = Date.now();
    const task = taskOf(await send(door.url, text));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    return { text: task.artifacts[0].parts[0].text as string, ms: Date.now() - started };
  };

  test('a command that ignores SIGTERM gets SIGKILL 2 s later: exit_code 137', async () => {
    const { text, ms } = await stopped('ignores term');
    assert.match(text, /^state: stopped$/m);
    assert.match(text, /^exit_code: 137$/m);
    assert.match(text, /^status: error$/m);
    assert.ok(ms >= 2000, `the SIGKILL came after 2 s (${ms} ms)`);
  });

  test('a command that traps SIGTERM and exits 0 reports its own exit: 0, status ok', async () => {
    const { text } = await stopped('traps term');
    assert.match(text, /^state: stopped$/m);
    assert.match(text, /^exit_code: 0$/m);
    assert.match(text, /^status: ok$/m);
    assert.match(text, /^trapped$/m);
  });

  test('a setsid process outlives the stop (143 for the command) and dies with the session', async () => {
    const { text } = await stopped('escapes');
    assert.match(text, /^exit_code: 143$/m);
    assert.equal(processesRunning('sleep', '319.5').length, 1, 'the escapee runs on after the stop');
    await door.stop();
    await waitFor(async () => (processesRunning('sleep', '319.5').length === 0 ? true : undefined), 'the escapee to die with the session', 8000);
  });
});

describe("a background command's log: bounded by capabilities.shell.max_file_mib, written no faster than the disk takes it", () => {
  let door: DoorProcess;
  const script = `
rules:
  - match: '^flood'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 0.5; head -c 5000000 /dev/zero; echo never-here" }
      - tools:
          - tool: background-command
            input: { operation: wait, work_id: "{{tool.work_id}}", wait_secs: 30 }
        answer: "{{tool.content}}"
default:
  turns:
    - answer: no rule
`;
  before(async () => {
    door = await runDoor(
      makeCapsule(lifecycleManifest({ acceptance: 'queue', graceSecs: 0.2 }).replace('    allow: [bash]', '    allow: [bash]\n    max_file_mib: 1'), script),
    );
  });
  after(() => door?.stop());

  test('past the bound the door ends the command; the log holds exactly the bound; the answer says why', async () => {
    const task = taskOf(await send(door.url, 'flood'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    const text: string = task.artifacts[0].parts[0].text;
    assert.match(text, /^state: exited$/m);
    assert.match(text, /^status: error$/m);
    assert.match(text, /^output_bytes: 1048576$/m);
    assert.match(text, /\nnote: the command's output passed capabilities\.shell\.max_file_mib \(1 MiB\) in its log: the door ended it$/);
    const log = /^output: (\S+)$/m.exec(text)?.[1];
    assert.ok(log !== undefined);
    assert.equal(readFileSync(log).length, 1_048_576);
  });
});
