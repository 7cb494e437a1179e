/**
 * A shell command ended by a signal reports 128 + the signal's number, as a shell does (SIGSEGV → 139, SIGABRT →
 * 134), in the foreground and after it moved to the background; and a runtime tool whose grant is not declared is
 * refused with a message naming the missing declaration (seed 004, "The grant is the tool's existence").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { lifecycleManifest, readTrace } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^fg (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "kill -{{match.1}} $$" }
        answer: "exit {{tool.exit_code}}"
  - match: '^bg (.*)$'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 1.5; kill -{{match.1}} $$" }
      - tools:
          - tool: background-command
            input: { operation: wait, work_id: "{{tool.work_id}}", wait_secs: 20 }
        answer: "{{tool.stdout}}"
  - match: '^call background-command$'
    turns:
      - tools:
          - tool: background-command
            input: {}
        answer: "{{tool.content}}"
  - match: '^call delegate-task$'
    turns:
      - tools:
          - tool: delegate-task
            input: {}
        answer: "{{tool.content}}"
  - match: '^call switch-driver$'
    turns:
      - tools:
          - tool: switch-driver
            input: {}
        answer: "{{tool.content}}"
  - match: '^call python3$'
    turns:
      - tools:
          - tool: python3
            input: {}
        answer: "{{tool.content}}"
default:
  turns:
    - answer: no rule
`;

const answerOf = async (url: string, text: string): Promise<string> => {
  const task = taskOf(await send(url, text));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
  return task.artifacts[0].parts[0].text;
};

describe('exit codes after a signal', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue', graceSecs: 1 }), SCRIPT));
  });
  after(() => door.stop());

  test('in the foreground: SIGSEGV 139, SIGABRT 134, SIGKILL 137, SIGTERM 143', async () => {
    for (const [signal, code] of [
      ['SEGV', 139],
      ['ABRT', 134],
      ['KILL', 137],
      ['TERM', 143],
    ] as const) {
      assert.equal(await answerOf(door.url, `fg ${signal}`), `exit ${code}`, signal);
    }
    const calls = readTrace(door.recordsDir).filter((r) => r.type === 'tool_call');
    assert.deepEqual(
      calls.slice(0, 2).map((r) => r.exit_code),
      [139, 134],
    );
  });

  test('in the background: background-command reports SIGSEGV 139 and SIGABRT 134', async () => {
    assert.match(await answerOf(door.url, 'bg SEGV'), /\nstate: exited\n[\s\S]*\nexit_code: 139\nstatus: error\n/);
    assert.match(await answerOf(door.url, 'bg ABRT'), /\nstate: exited\n[\s\S]*\nexit_code: 134\nstatus: error\n/);
  });
});

describe('a runtime tool whose grant is absent', () => {
  let door: DoorProcess;
  before(async () => {
    // No lifecycle.shell_grace_secs: background-command is not granted.
    door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT));
  });
  after(() => door.stop());

  test('a call naming it is refused with the declaration that is missing', async () => {
    assert.equal(
      await answerOf(door.url, 'call background-command'),
      "tool 'background-command' does not exist in this capsule: it is provided only when the manifest declares an inference: block, a non-empty capabilities.shell.allow and a lifecycle.shell_grace_secs",
    );
    assert.equal(
      await answerOf(door.url, 'call delegate-task'),
      "tool 'delegate-task' does not exist in this capsule: it is provided only when the manifest declares capabilities.spawn.allow",
    );
    assert.equal(
      await answerOf(door.url, 'call switch-driver'),
      "tool 'switch-driver' does not exist in this capsule: it is provided only when the manifest declares control.agent_settings: [inference.driver]",
    );
  });

  test('a name that is neither granted nor a runtime tool keeps the allowlist refusal', async () => {
    assert.equal(await answerOf(door.url, 'call python3'), "tool 'python3' is not declared in manifest allowlist");
  });

  test('it is not in session_start’s tools_declared', () => {
    const start = readTrace(door.recordsDir).find((r) => r.type === 'session_start');
    assert.deepEqual(start?.tools_declared, ['bash', 'session-status']);
  });
});
