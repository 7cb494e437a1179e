/**
 * The background-command tool (seed 004, "background-command"): offered with lifecycle.shell_grace_secs; status,
 * wait and stop by work id; its refusals; and lifecycle.after_task: exit.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { getTask, lifecycleManifest, readTrace } from './support/tasks.js';

/** A bash command that outlives the 1 s grace, then one background-command call on its work id. */
const call = (command: string, input: string) => `
    turns:
      - tools:
          - tool: bash
            input: { command: "${command}" }
      - tools:
          - tool: background-command
            input: ${input}
        answer: "{{tool.stdout}}{{tool.stderr}}"`;

const SCRIPT = `
rules:
  - match: '^status'${call('sleep 20', '{ operation: status, work_id: "{{tool.work_id}}" }')}
  - match: '^wait'${call('sleep 1.5; echo finished-in-background', '{ operation: wait, work_id: "{{tool.work_id}}", wait_secs: 20 }')}
  - match: '^stop'${call('sleep 30', '{ operation: stop, work_id: "{{tool.work_id}}" }')}
  - match: '^unknown id'${call('sleep 20', '{ operation: status, work_id: wrk_00 }')}
  - match: '^bad id'${call('sleep 20', '{ operation: status, work_id: job-7 }')}
  - match: '^no id'${call('sleep 20', '{ operation: status }')}
  - match: '^bad operation'${call('sleep 20', '{ operation: restart, work_id: "{{tool.work_id}}" }')}
  - match: '^bad wait'${call('sleep 20', '{ operation: wait, work_id: "{{tool.work_id}}", wait_secs: 1.5 }')}
default:
  turns:
    - answer: no rule
`;

/** The task's answer; the script answers with the tool's text (trailing newlines trimmed, as templates do). */
const answerOf = async (url: string, text: string): Promise<string> => {
  const task = taskOf(await send(url, text));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
  return task.artifacts[0].parts[0].text;
};

describe('background-command', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue', graceSecs: 1 }), SCRIPT));
  });
  after(() => door.stop());

  test('status reports a running command, its log and its work id', async () => {
    const text = await answerOf(door.url, 'status');
    assert.match(
      text,
      /^work_id: wrk_[0-9a-f]{32}\nstate: running\nelapsed_secs: \d+\noutput: \S+\/logs\/wrk_[0-9a-f]{32}\.log\noutput_bytes: 0\noutput_shown: all$/,
    );
  });

  test('wait returns when the command exits, with its exit code, status and output', async () => {
    const text = await answerOf(door.url, 'wait');
    assert.match(
      text,
      /^work_id: wrk_[0-9a-f]{32}\nstate: exited\nelapsed_secs: \d+\nwaited_secs: \d+\nexit_code: 0\nstatus: ok\noutput: .+\noutput_bytes: 23\noutput_shown: all\n\nfinished-in-background$/,
    );
  });

  test('stop ends the command with its process group: state stopped, 128 + SIGTERM', async () => {
    const text = await answerOf(door.url, 'stop');
    assert.match(text, /\nstate: stopped\n/);
    assert.match(text, /\nexit_code: 143\nstatus: error\n/);
  });

  test('its refusals name what is wrong; a refused call is an error result and the task goes on', async () => {
    assert.equal(await answerOf(door.url, 'unknown id'), 'no background command with work id `wrk_00` in this session');
    assert.match(await answerOf(door.url, 'bad id'), /^work_id "job-7" is not of the form wrk_<hex>$/);
    assert.match(await answerOf(door.url, 'no id'), /^work_id is required/);
    assert.equal(await answerOf(door.url, 'bad operation'), 'operation "restart" is not one of status, wait, stop');
    assert.equal(await answerOf(door.url, 'bad wait'), 'wait_secs 1.5 is not a whole number');
    const calls = readTrace(door.recordsDir).filter((r) => r.type === 'tool_call' && r.tool === 'background-command');
    assert.ok(
      calls.some((r) => r.status === 'error'),
      'a refused call is recorded as an error',
    );
  });
});

describe('lifecycle.after_task: exit', () => {
  test('the session closes by itself once its task ends: exit 0, the task kept, the registry entry gone', async () => {
    const manifest = lifecycleManifest({ acceptance: 'single' }).replace('  task_acceptance: single', '  task_acceptance: single\n  after_task: exit');
    const door = await runDoor(makeCapsule(manifest, 'rules: []\ndefault:\n  turns:\n    - answer: done once\n'), ['--task', 'once']);
    try {
      const exited = await door.exited;
      assert.equal(exited.code, 0, door.stderr());
      const sessions = path.join(door.home, 'sessions');
      assert.deepEqual(existsSync(sessions) ? readdirSync(sessions) : [], []);
      const ends = readTrace(door.recordsDir).filter((r) => r.type === 'task_end');
      assert.deepEqual(
        ends.map((r) => [r.task_id, r.state]),
        [[door.launchTaskId, 'TASK_STATE_COMPLETED']],
      );
      assert.ok(readTrace(door.recordsDir).some((r) => r.type === 'session_end'));
    } finally {
      await door.stop();
    }
  });

  test('a resumed session keeps that task', async () => {
    const manifest = lifecycleManifest({ acceptance: 'single' }).replace('  task_acceptance: single', '  task_acceptance: single\n  after_task: exit');
    const capsule = makeCapsule(manifest, 'rules: []\ndefault:\n  turns:\n    - answer: done once\n');
    const first = await runDoor(capsule, ['--task', 'once']);
    await first.exited;
    const again = await runDoor(capsule, ['--resume', first.sessionId], first.home);
    try {
      const task = resultOf(await getTask(again.url, first.launchTaskId!));
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(task.artifacts[0].parts[0].text, 'done once');
    } finally {
      await again.stop();
    }
  });
});
