/**
 * Shells never outlive their session (seed 004; docs/agent-loop.md, "Processes"): a foreground call returns when
 * the shell exits, naming the processes that still hold its output; every command's process group is killed when
 * the session ends — also one that ignores SIGTERM, and also when the door itself is killed with SIGKILL, after
 * which a resumed launch reports what it lost. A background command's exit arrives once as a task of the session,
 * unless background-command already returned it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { rpc, send, waitFor } from './support/rpc.js';
import { groupAlive, isAlive, lifecycleManifest, listAll, readPid, readTrace, sleep } from './support/tasks.js';

const dir = tempDir('pids');
const pidFile = (name: string) => path.join(dir, name);

const SCRIPT = `
rules:
  - match: '^holder$'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 30 & echo $$ > ${pidFile('holder')}; echo hi" }
        answer: "{{tool.content}}"
  - match: '^escape (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "setsid sleep 41 < /dev/null > /dev/null 2>&1 & echo $! > ${dir}/{{match.1}}" }
        answer: escaped
  - match: '^stubborn$'
    turns:
      - tools:
          - tool: bash
            input: { command: "trap '' TERM; echo $$ > ${pidFile('stubborn')}; sleep 45" }
        answer: done
  - match: '^detach (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo $$ > ${dir}/{{match.1}}; sleep 40" }
        answer: "{{tool.work_id}}"
  - match: '^quick (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 1.3; echo finished {{match.1}}" }
        answer: "{{tool.work_id}}"
  - match: '^wait long$'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 30" }
      - tools:
          - tool: background-command
            input: { operation: wait, work_id: "{{tool.work_id}}", wait_secs: 60 }
        answer: "{{tool.stdout}}"
  - match: '^waited$'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 1.3; echo finished waited" }
      - tools:
          - tool: background-command
            input: { operation: wait, work_id: "{{tool.work_id}}", wait_secs: 20 }
        answer: "{{tool.stdout}}"
default:
  turns:
    - answer: "seen: {{task.text}}"
`;

const doors: DoorProcess[] = [];
after(() => Promise.all(doors.map((d) => d.stop('SIGKILL'))));
async function door(
  opts: { graceSecs?: number } = {},
  home?: string,
  args: string[] = [],
  capsule = makeCapsule(lifecycleManifest({ sandbox: 'off', acceptance: 'queue', graceSecs: opts.graceSecs }), SCRIPT),
): Promise<DoorProcess> {
  const d = await runDoor(capsule, args, home);
  doors.push(d);
  return d;
}
const recorded = (d: DoorProcess) => readdirSync(path.join(d.recordsDir, 'processes')).filter((f) => /^\d+$/.test(f));

describe('a foreground call returns when its shell exits', () => {
  test('sleep 30 & echo hi: back long before the holder ends, the holder named in a note after the fence', async () => {
    const d = await door();
    const started = Date.now();
    const task = taskOf(await send(d.url, 'holder'));
    const elapsed = Date.now() - started;
    // The call returns once the shell exits and 50 ms of draining pass, not when the 30 s holder lets go of the
    // output: well under the holder's life even on a machine loaded by three test files at a time.
    assert.ok(elapsed < 5000, `the call took ${elapsed} ms`);
    const content: string = task.artifacts[0].parts[0].text;
    assert.match(content, /Exit code: 0\nStdout:\nhi\n/);
    assert.match(
      content,
      /<\/untrusted-content>\nnote: the command exited, but 1 process it started still holds its output and runs on until the session ends: \d+ sleep$/,
    );
    const pgid = readPid(pidFile('holder'))!;
    assert.equal(groupAlive(pgid), true, 'the holder runs on');
    await d.stop();
    assert.equal(groupAlive(pgid), false, 'the session’s end killed it');
  });
});

describe('the session’s end kills every command', () => {
  test('a foreground command that ignores SIGTERM dies with the session (SIGKILL after the grace)', async () => {
    const d = await door();
    void send(d.url, 'stubborn');
    const pgid = await waitFor(async () => readPid(pidFile('stubborn')), 'the stubborn command');
    const stopped = Date.now();
    await d.stop('SIGTERM');
    assert.equal(groupAlive(pgid), false, `still alive ${Date.now() - stopped} ms after the door exited`);
  });

  test('kill -9 of the door: the reaper kills its background commands, and --resume reports them as lost', async () => {
    const home = tempDir('home');
    const capsule = makeCapsule(lifecycleManifest({ sandbox: 'off', acceptance: 'queue', graceSecs: 1 }), SCRIPT);
    const first = await door({}, home, [], capsule);
    const workId = taskOf(await send(first.url, 'detach k9')).artifacts[0].parts[0].text as string;
    assert.match(workId, /^wrk_[0-9a-f]{32}$/);
    const pgid = readPid(pidFile('k9'))!;
    assert.equal(groupAlive(pgid), true);
    assert.deepEqual(recorded(first), [String(pgid)], 'the group is recorded in the session’s records');
    await first.stop('SIGKILL');
    await waitFor(async () => (groupAlive(pgid) ? undefined : true), 'the reaper to kill the orphaned group', 5000);

    const resumed = await door({}, home, ['--resume', first.sessionId], capsule);
    assert.deepEqual(recorded(resumed), [], 'the lost group is forgotten once reported');
    const lost = readTrace(resumed.recordsDir).find((r) => r.type === 'commands_lost');
    assert.equal((lost?.commands as { workId: string }[])?.[0]?.workId, workId);
    const report = await waitFor(async () => {
      const tasks = await listAll(resumed.url);
      return tasks.find((t) => t.status.state === 'TASK_STATE_COMPLETED' && t.artifacts === undefined) ? tasks : undefined;
    }, 'the report task');
    assert.ok(report.length >= 2);
    const all = (await rpc(resumed.url, 'ListTasks', { includeArtifacts: true })).json.result.tasks as { artifacts: { parts: { text: string }[] }[] }[];
    const answer = all.map((t) => t.artifacts[0]?.parts[0]?.text ?? '').find((text) => text.includes('were lost'));
    assert.ok(answer?.includes(`- ${workId} (bash): echo`), answer);
  });
});

/** The pid of the reaper watching door `pid` (its command line names it), if one runs. */
function reaperOf(pid: number): number | undefined {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0');
      if (argv.includes('murmur-reaper') && argv[argv.indexOf('murmur-reaper') + 1] === String(pid)) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

describe('a door resumed before its killed run’s reaper acted', () => {
  test('the launch ends that reaper and kills what it would have: nothing of the killed run is alive once it announces', async () => {
    const home = tempDir('home');
    const capsule = makeCapsule(lifecycleManifest({ sandbox: 'off', acceptance: 'queue', graceSecs: 1 }), SCRIPT);
    const first = await door({}, home, [], capsule);
    await send(first.url, 'detach early');
    const pgid = await waitFor(async () => readPid(pidFile('early')), 'the detached command');
    const reaper = await waitFor(async () => reaperOf(first.pid), 'the reaper');
    // Held still, as in the half second between two of its polls: the resumed launch must not wait for it.
    process.kill(reaper, 'SIGSTOP');
    await first.stop('SIGKILL');
    assert.equal(groupAlive(pgid), true, 'the reaper, stopped, has not killed the group');
    await door({}, home, ['--resume', first.sessionId], capsule);
    assert.equal(groupAlive(pgid), false, 'the launch killed the group the killed run left');
    assert.equal(isAlive(reaper), false, 'the launch ended the killed run’s reaper');
  });
});

describe('a process that left its command’s group (setsid)', () => {
  const escaped = async (d: DoorProcess, name: string): Promise<number> => {
    assert.equal(taskOf(await send(d.url, `escape ${name}`)).status.state, 'TASK_STATE_COMPLETED');
    const pid = await waitFor(async () => readPid(pidFile(name)), 'the escaped pid');
    assert.ok(isAlive(pid), 'it runs on after the call');
    return pid;
  };

  test('dies with the session on a graceful end, found by the session’s mark', async () => {
    const d = await door();
    const pid = await escaped(d, 'esc1');
    await d.stop();
    await waitFor(async () => (isAlive(pid) ? undefined : true), 'the escaped process to be gone', 3000);
  });

  test('dies with a door killed with SIGKILL, by the reaper', async () => {
    const d = await door();
    const pid = await escaped(d, 'esc2');
    await d.stop('SIGKILL');
    await waitFor(async () => (isAlive(pid) ? undefined : true), 'the reaper to kill the escaped process', 5000);
  });
});

describe('a background command’s exit', () => {
  test('arrives once as a task of the session', async () => {
    const d = await door({ graceSecs: 1 });
    const workId = taskOf(await send(d.url, 'quick once')).artifacts[0].parts[0].text as string;
    const result = await waitFor(async () => {
      const tasks = (await rpc(d.url, 'ListTasks', { includeArtifacts: true })).json.result.tasks as { artifacts: { parts: { text: string }[] }[] }[];
      return tasks.find((t) => t.artifacts[0]?.parts[0]?.text.includes(`work_id: ${workId}`));
    }, 'the command’s result task');
    const text = result.artifacts[0].parts[0].text;
    assert.match(text, /^seen: A shell command that moved to the background has finished\.\n\nwork_id: wrk_[0-9a-f]{32}\nstate: exited\n/);
    assert.match(text, /\nexit_code: 0\nstatus: ok\n[\s\S]*\n\nfinished once\n$/);
    await sleep(500);
    const records = readTrace(d.recordsDir).filter((r) => r.type === 'command_result_task');
    assert.equal(records.length, 1);
    assert.equal(records[0].work_id, workId);
  });

  test('a cancel ends a background-command wait at once, recorded as phase background_wait', async () => {
    const d = await door({ graceSecs: 1 });
    const id = taskOf(await send(d.url, 'wait long', {}, { returnImmediately: true })).id as string;
    await waitFor(
      async () => (readTrace(d.recordsDir).some((r) => r.type === 'tool_call' && r.tool === 'bash' && r.task_id === id) ? true : undefined),
      'the command to move to the background',
    );
    await sleep(300);
    const canceled = Date.now();
    assert.equal((await rpc(d.url, 'CancelTask', { id })).json.result.status.state, 'TASK_STATE_CANCELED');
    const record = await waitFor(async () => readTrace(d.recordsDir).find((r) => r.type === 'background_command' && r.task_id === id), 'the wait’s record');
    assert.ok(Date.now() - canceled < 2000, 'the wait ended at once');
    assert.equal(record.phase, 'background_wait');
    assert.equal(record.operation, 'wait');
    assert.equal(record.state, 'running');
  });

  test('arrives not at all when background-command already returned it', async () => {
    const d = await door({ graceSecs: 1 });
    const answer = taskOf(await send(d.url, 'waited')).artifacts[0].parts[0].text as string;
    assert.match(answer, /\nstate: exited\n/);
    await sleep(800);
    assert.equal(readTrace(d.recordsDir).filter((r) => r.type === 'command_result_task').length, 0);
    const waited = readTrace(d.recordsDir).filter((r) => r.type === 'background_command');
    assert.equal(waited.length, 1);
    assert.equal(waited[0].operation, 'wait');
    assert.equal(waited[0].state, 'exited');
  });
});
