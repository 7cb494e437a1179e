/** CancelTask and murmur.StopSession (seed 000: "GetTask", "Errors", "Task metadata", "murmur.StopSession", "Residue items"). */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertRpcError, assertStatusMessage, resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { rpc, send, waitFor, waitForState } from './support/rpc.js';
import {
  cancelTask,
  DOOR_URI,
  getTask,
  groupAlive,
  isAlive,
  lifecycleManifest,
  readPid,
  readTrace,
  sendMessage,
  sleep,
  taskInContext,
} from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^break'
    turns:
      - fail: the driver failed
  - match: '^hold'
    turns:
      - ask: Which branch?
      - sleep_ms: 30000
        answer: "held {{reply}}"
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
  - match: '^longbash (\\w+)'
    turns:
      - tools:
          - tool: bash
            input: { command: "sleep 31 & echo $! > {{match.1}}.child; echo $$ > {{match.1}}.pid; sleep 30" }
        answer: "slept {{tool.exit_code}}"
  - match: '^bgsleep (\\w+)'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo $$ > {{match.1}}.pid; sleep 30" }
      - sleep_ms: 30000
        answer: "{{tool.content}}"
  - match: '^bgdone (\\w+)'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo $$ > {{match.1}}.pid; sleep 30 # ${'x'.repeat(220)}" }
        answer: "{{tool.content}}"
default:
  turns:
    - answer: no rule
`;

const UNKNOWN = 'tsk_0123456789abcdef0123456789abcdef';

describe('CancelTask', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ sandbox: 'off', acceptance: 'single' }), SCRIPT), ['--task', 'nap at launch']);
  });
  after(() => door.stop());

  test("the launch's own task holds the capsule, and CancelTask reaches it like any other", async () => {
    assert.ok(door.launchTaskId);
    await waitForState(door.url, door.launchTaskId, 'TASK_STATE_WORKING');
    assert.equal(taskOf(await send(door.url, 'say hello')).status.state, 'TASK_STATE_REJECTED');
    const canceled = resultOf(await cancelTask(door.url, door.launchTaskId));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assertStatusMessage(canceled, 'task canceled');
    assert.equal(taskOf(await send(door.url, 'say hello')).status.state, 'TASK_STATE_COMPLETED');
  });

  test('on a WORKING task: CANCELED "task canceled", and the held SendMessage answers CANCELED too', async () => {
    const held = send(door.url, 'nap', { contextId: 'cancel-working' });
    const working = await taskInContext(door.url, 'cancel-working', 'TASK_STATE_WORKING');
    const began = Date.now();
    const canceled = resultOf(await cancelTask(door.url, working.id));
    assert.equal(canceled.id, working.id);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assertStatusMessage(canceled, 'task canceled');
    assert.equal(canceled.artifacts, undefined, 'no residue artifact when nothing runs on');
    assert.equal(canceled.metadata, undefined);
    const answered = taskOf(await held);
    assert.ok(Date.now() - began < 2000, 'the sleep ended at once');
    assert.deepEqual(answered, canceled);
    assert.deepEqual(resultOf(await getTask(door.url, working.id)), canceled);
    await sleep(50);
    const ends = readTrace(door.recordsDir).filter((r) => r.type === 'task_end' && r.task_id === working.id);
    assert.deepEqual(
      ends.map((r) => r.state),
      ['TASK_STATE_CANCELED'],
    );
  });

  test('on an INPUT_REQUIRED task: CANCELED, its prompt gone, and a reply is refused -32004', async () => {
    const asked = taskOf(await send(door.url, 'deploy'));
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const canceled = resultOf(await cancelTask(door.url, asked.id));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assertStatusMessage(canceled, 'task canceled');
    assert.equal(canceled.artifacts, undefined);
    assertRpcError(await sendMessage(door.url, 'main', { taskId: asked.id }), -32004, undefined, { taskId: asked.id, state: 'TASK_STATE_CANCELED' });
    assert.equal(taskOf(await send(door.url, 'say free')).status.state, 'TASK_STATE_COMPLETED', 'the capsule has room again');
  });

  test('on a task running a real bash command: the command and its whole process group are gone', async () => {
    const held = send(door.url, 'longbash lb1', { contextId: 'cancel-bash' });
    const pidFile = path.join(door.recordsDir, 'work', 'lb1.pid');
    const childFile = path.join(door.recordsDir, 'work', 'lb1.child');
    const pid = await waitFor(async () => readPid(pidFile), 'the command to write its pid');
    const child = await waitFor(async () => readPid(childFile), 'the command to write its child pid');
    assert.ok(isAlive(pid) && isAlive(child) && groupAlive(pid));
    const task = await taskInContext(door.url, 'cancel-bash', 'TASK_STATE_WORKING');
    const canceled = resultOf(await cancelTask(door.url, task.id));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assert.equal(canceled.artifacts, undefined, 'a foreground command is not residue');
    assert.equal(taskOf(await held).status.state, 'TASK_STATE_CANCELED');
    await waitFor(async () => (!isAlive(pid) && !isAlive(child) && !groupAlive(pid) ? true : undefined), 'the process group to be gone', 5000);
  });

  test('an ended task is left unchanged and answered -32002 naming the state it ended in', async () => {
    const completed = taskOf(await send(door.url, 'say done'));
    const failed = taskOf(await send(door.url, 'break'));
    const live = taskOf(await send(door.url, 'nap', {}, { returnImmediately: true }));
    await waitForState(door.url, live.id, 'TASK_STATE_WORKING');
    const rejected = taskOf(await send(door.url, 'say busy'));
    assert.equal(rejected.status.state, 'TASK_STATE_REJECTED');
    const canceled = resultOf(await cancelTask(door.url, live.id));
    for (const task of [completed, failed, rejected, canceled]) {
      const state = task.status.state;
      assertRpcError(await cancelTask(door.url, task.id), -32002, `Task cannot be canceled: it is already ${state}`, { taskId: task.id, state });
      assert.deepEqual(resultOf(await getTask(door.url, task.id)), task, `${state} task unchanged`);
    }
  });

  test('a cancel racing a reply: the task ends CANCELED and stays so; the reply is taken first or refused -32004', async () => {
    for (let i = 0; i < 5; i++) {
      const asked = taskOf(await send(door.url, 'hold on'));
      assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
      const [cancel, reply] = await Promise.all([
        cancelTask(door.url, asked.id),
        sendMessage(door.url, 'main', { taskId: asked.id }, { returnImmediately: true }),
      ]);
      assert.equal(resultOf(cancel).status.state, 'TASK_STATE_CANCELED');
      if (reply.json.error) assertRpcError(reply, -32004, undefined, { taskId: asked.id, state: 'TASK_STATE_CANCELED' });
      else assert.equal(taskOf(reply).status.state, 'TASK_STATE_WORKING');
      await sleep(30);
      const now = resultOf(await getTask(door.url, asked.id));
      assert.equal(now.status.state, 'TASK_STATE_CANCELED', 'a reply never brings a canceled task back');
      assertStatusMessage(now, 'task canceled');
      assert.equal(taskOf(await send(door.url, 'say free')).status.state, 'TASK_STATE_COMPLETED', 'nothing is left holding the capsule');
    }
  });

  test('two concurrent CancelTasks: one cancels, the other is answered -32002 and nothing is written twice', async () => {
    for (let i = 0; i < 3; i++) {
      const asked = taskOf(await send(door.url, 'hold it'));
      const answers = await Promise.all([cancelTask(door.url, asked.id), cancelTask(door.url, asked.id)]);
      const [won, lost] = answers[0].json.result ? answers : [answers[1], answers[0]];
      const canceled = resultOf(won);
      assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
      assertRpcError(lost, -32002, 'Task cannot be canceled: it is already TASK_STATE_CANCELED', { taskId: asked.id, state: 'TASK_STATE_CANCELED' });
      assert.deepEqual(resultOf(await getTask(door.url, asked.id)), canceled);
      await sleep(30);
      assert.equal(readTrace(door.recordsDir).filter((r) => r.type === 'task_end' && r.task_id === asked.id).length, 1);
    }
  });

  test('CancelTask and GetTask need an id; an unknown one is -32001', async () => {
    for (const params of [{}, { id: '' }]) {
      assertRpcError(await rpc(door.url, 'CancelTask', params), -32602, 'CancelTask requires an id');
      assertRpcError(await rpc(door.url, 'GetTask', params), -32602, 'GetTask requires an id');
    }
    assertRpcError(await rpc(door.url, 'CancelTask'), -32602, 'CancelTask requires an id');
    assertRpcError(await rpc(door.url, 'GetTask', { id: null }), -32602, 'GetTask requires an id');
    assertRpcError(await rpc(door.url, 'GetTask', { id: 5 }), -32602);
    assertRpcError(await rpc(door.url, 'CancelTask', { id: ['x'] }), -32602);
    assertRpcError(await cancelTask(door.url, UNKNOWN), -32001, 'Task not found', { taskId: UNKNOWN });
    assertRpcError(await getTask(door.url, UNKNOWN), -32001, 'Task not found', { taskId: UNKNOWN });
    assertRpcError(await rpc(door.url, 'GetTask', { id: UNKNOWN, historyLength: 3 }), -32001, 'Task not found', { taskId: UNKNOWN });
  });
});

describe('background commands and murmur.StopSession', () => {
  let door: DoorProcess;
  const pids: number[] = [];
  before(async () => {
    door = await runDoor(makeCapsule(lifecycleManifest({ sandbox: 'off', acceptance: 'queue', graceSecs: 1 }), SCRIPT));
  });
  after(() => door.stop());

  test('a command past shell_grace_secs moves to the background; canceling its task answers a residue artifact', async () => {
    const task = taskOf(await send(door.url, 'bgsleep bg1', { contextId: 'bg1' }, { returnImmediately: true }));
    const call = await waitFor(async () => readTrace(door.recordsDir).find((r) => r.type === 'tool_call' && r.task_id === task.id), 'the tool call');
    assert.match(call.work_id as string, /^wrk_[0-9a-f]+$/);
    const pid = readPid(path.join(door.recordsDir, 'work', 'bg1.pid'))!;
    pids.push(pid);
    await waitForState(door.url, task.id, 'TASK_STATE_WORKING');
    const before = Date.now();
    const canceled = resultOf(await cancelTask(door.url, task.id));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assertStatusMessage(canceled, 'task canceled');
    assert.equal(canceled.artifacts.length, 1);
    const [residue] = canceled.artifacts;
    assert.equal(residue.artifactId, 'residue');
    assert.equal(residue.name, 'residue');
    assert.equal(residue.parts.length, 1);
    assert.equal(residue.parts[0].mediaType, 'application/json');
    const item = residue.parts[0].data;
    assert.deepEqual(Object.keys(item).sort(), ['binary', 'command', 'kind', 'started_at_ms', 'work_id']);
    assert.equal(item.kind, 'detached_shell');
    assert.equal(item.work_id, call.work_id);
    assert.equal(item.binary, 'bash');
    assert.equal(item.command, 'echo $$ > bg1.pid; sleep 30');
    assert.ok(Number.isInteger(item.started_at_ms) && item.started_at_ms <= before && item.started_at_ms > before - 10_000);
    const [running] = canceled.metadata.murmur.runningCommands;
    assert.equal(running.workId, call.work_id);
    assert.deepEqual(resultOf(await getTask(door.url, task.id)), canceled);
    assert.ok(isAlive(pid), 'canceling the task leaves the background command running');
  });

  test('a task that completes while its background command runs names it in metadata.murmur.runningCommands', async () => {
    const task = taskOf(await send(door.url, 'bgdone bg2'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const answer = task.artifacts[0].parts[0].text as string;
    const workId = /work_id: (wrk_[0-9a-f]+)/.exec(answer)?.[1];
    assert.ok(workId, `the tool result names a work id: ${answer}`);
    assert.deepEqual(
      task.artifacts.map((a: { artifactId: string }) => a.artifactId),
      ['response'],
      'a completed task carries no residue artifact',
    );
    const commands = task.metadata.murmur.runningCommands;
    assert.equal(commands.length, 1);
    assert.deepEqual(Object.keys(commands[0]).sort(), ['binary', 'command', 'runningMs', 'workId']);
    assert.equal(commands[0].workId, workId);
    assert.ok(path.isAbsolute(commands[0].binary) && path.basename(commands[0].binary) === 'bash', commands[0].binary);
    const written = `echo $$ > bg2.pid; sleep 30 # ${'x'.repeat(220)}`;
    assert.equal(commands[0].command, `${written.slice(0, 200)}…`, 'cut to 200 characters followed by …');
    assert.ok(commands[0].runningMs >= 1000 && commands[0].runningMs < 10_000, String(commands[0].runningMs));
    assert.deepEqual(resultOf(await getTask(door.url, task.id)), task);
    pids.push(readPid(path.join(door.recordsDir, 'work', 'bg2.pid'))!);
    const end = readTrace(door.recordsDir).find((r) => r.type === 'task_end' && r.task_id === task.id);
    assert.ok(end, 'the task_end record');
    assert.equal((end.running_commands as { workId: string }[])[0].workId, workId);
  });

  test('murmur.StopSession cancels every live task, reports the residue, and the door keeps serving', async () => {
    const asked = taskOf(await send(door.url, 'deploy'));
    const working = taskOf(await send(door.url, 'nap a', {}, { returnImmediately: true }));
    const queued = taskOf(await send(door.url, 'nap b', {}, { returnImmediately: true }));
    await waitForState(door.url, working.id, 'TASK_STATE_WORKING');
    assert.equal(resultOf(await getTask(door.url, queued.id)).status.state, 'TASK_STATE_SUBMITTED');

    const answer = await rpc(door.url, 'murmur.StopSession', {});
    assert.equal(answer.headers.get('a2a-extensions'), DOOR_URI);
    const result = resultOf(answer);
    assert.deepEqual(Object.keys(result).sort(), ['canceled', 'residue', 'session_id']);
    assert.equal(result.session_id, door.sessionId);
    assert.deepEqual(result.canceled, [asked.id, working.id, queued.id].sort());
    assert.deepEqual(
      result.residue.map((r: { kind: string; binary: string }) => [r.kind, r.binary]),
      [
        ['detached_shell', 'bash'],
        ['detached_shell', 'bash'],
      ],
    );
    assert.ok(result.residue[0].started_at_ms <= result.residue[1].started_at_ms, 'oldest first');
    for (const pid of pids) assert.ok(isAlive(pid), 'StopSession ends no process');

    assertStatusMessage(resultOf(await getTask(door.url, asked.id)), 'task canceled');
    assertStatusMessage(resultOf(await getTask(door.url, working.id)), 'task canceled');
    assertStatusMessage(resultOf(await getTask(door.url, queued.id)), 'task canceled before it started');

    const again = resultOf(await rpc(door.url, 'murmur.StopSession', { ignored: true }));
    assert.deepEqual(again.canceled, []);
    assert.equal(again.residue.length, 2);
    assert.equal(again.session_id, door.sessionId);
    assert.equal(taskOf(await send(door.url, 'say still here')).artifacts[0].parts[0].text, 'still here');
  });

  test("the session's end kills the background commands it left running", async () => {
    assert.deepEqual(await door.stop(), { code: 0, signal: null });
    for (const pid of pids) await waitFor(async () => (!isAlive(pid) && !groupAlive(pid) ? true : undefined), `background command ${pid} to be gone`, 5000);
  });
});
