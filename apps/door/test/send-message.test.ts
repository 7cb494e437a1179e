/** SendMessage (seed 000: "Answers", "Continuing a task", "Task states", "Status timestamps"): what a message starts and how it is answered. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertRpcError, assertStatusMessage, resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { rpc, send, waitForState } from './support/rpc.js';
import { CONTEXT_ID, cancelTask, getTask, lifecycleManifest, listTasks, readTrace, sendMessage, TASK_ID, UTC_MS } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
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
  - match: '^loop'
    turns:
      - text: [a]
      - text: [b]
      - text: [c]
      - text: [d]
      - text: [e]
  - match: '^exit (\\d+)'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo hello-$((6*7)); echo oops >&2; exit {{match.1}}" }
        answer: "code={{tool.exit_code}} out={{tool.stdout}} err={{tool.stderr}}"
  - match: '^undeclared'
    turns:
      - tools:
          - tool: python3
            input: { command: "print(1)" }
      - tools:
          - tool: bash
            input: { command: "echo still-running" }
        answer: "after {{tool.stdout}}"
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue', maxTurns: 4 }), SCRIPT));
});
after(() => door.stop());

test('a blocking SendMessage answers the completed task exactly as GetTask reports it', async () => {
  const before = Date.now();
  const task = taskOf(await send(door.url, 'say four'));
  assert.match(task.id, TASK_ID);
  assert.match(task.contextId, CONTEXT_ID, 'a task without a contextId is given a fresh ctx_');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assertStatusMessage(task, 'task completed');
  assert.match(task.status.timestamp, UTC_MS);
  const stamped = Date.parse(task.status.timestamp);
  assert.ok(stamped >= before - 5 && stamped <= Date.now() + 5, `timestamp ${task.status.timestamp} is when the task ended`);
  assert.deepEqual(task.artifacts, [{ artifactId: 'response', name: 'response', parts: [{ text: 'four', mediaType: 'text/plain' }] }]);
  assert.equal(task.metadata, undefined, 'metadata is absent when it says nothing');
  assert.deepEqual(resultOf(await getTask(door.url, task.id)), task);
  assert.deepEqual(resultOf(await rpc(door.url, 'GetTask', { id: task.id, historyLength: 10 })), task, 'historyLength is ignored');
});

test('a contextId on the message is kept; each new task without one gets its own fresh context', async () => {
  const kept = taskOf(await send(door.url, 'say kept', { contextId: 'my-own-context' }));
  assert.equal(kept.contextId, 'my-own-context');
  assert.equal(kept.status.message.contextId, 'my-own-context');
  const empty = taskOf(await send(door.url, 'say empty', { contextId: '' }));
  assert.match(empty.contextId, CONTEXT_ID, 'contextId "" names none');
  const other = taskOf(await send(door.url, 'say other'));
  assert.notEqual(other.contextId, empty.contextId);
});

test('returnImmediately true answers the task SUBMITTED, before it runs', async () => {
  const answer = await send(door.url, 'say later', {}, { returnImmediately: true });
  const task = taskOf(answer);
  assert.deepEqual(Object.keys(task).sort(), ['contextId', 'id', 'status']);
  assert.deepEqual(Object.keys(task.status).sort(), ['state', 'timestamp']);
  assert.equal(task.status.state, 'TASK_STATE_SUBMITTED');
  assert.match(task.status.timestamp, UTC_MS);
  const done = await waitForState(door.url, task.id, 'TASK_STATE_COMPLETED');
  assert.equal(done.artifacts[0].parts[0].text, 'later');
  assert.ok(Date.parse(done.status.timestamp) >= Date.parse(task.status.timestamp));
});

test('returnImmediately false or null holds the request until the task settles', async () => {
  assert.equal(taskOf(await send(door.url, 'say held', {}, { returnImmediately: false })).status.state, 'TASK_STATE_COMPLETED');
  assert.equal(taskOf(await send(door.url, 'say null', {}, { returnImmediately: null })).status.state, 'TASK_STATE_COMPLETED');
  assert.equal(taskOf(await send(door.url, 'say ignored', {}, { acceptedOutputModes: ['text/plain'], blocking: false })).status.state, 'TASK_STATE_COMPLETED');
});

test('returnImmediately "yes" is refused -32602 and nothing starts', async () => {
  const count = resultOf(await listTasks(door.url)).totalSize;
  const starts = readTrace(door.recordsDir).filter((r) => r.type === 'task_start').length;
  const answer = await send(door.url, 'say never', {}, { returnImmediately: 'yes' });
  assertRpcError(answer, -32602, 'configuration.returnImmediately must be a boolean');
  assertRpcError(await send(door.url, 'say never', {}, { returnImmediately: 1 }), -32602, 'configuration.returnImmediately must be a boolean');
  assert.equal(resultOf(await listTasks(door.url)).totalSize, count);
  assert.equal(readTrace(door.recordsDir).filter((r) => r.type === 'task_start').length, starts);
});

test('INPUT_REQUIRED: the held request answers the prompt; the reply naming the task answers it COMPLETED', async () => {
  const asked = taskOf(await send(door.url, 'deploy the site'));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(asked.status.message, undefined, 'a paused task carries no status message');
  assert.match(asked.status.timestamp, UTC_MS);
  assert.deepEqual(asked.artifacts, [{ artifactId: 'prompt', name: 'prompt', parts: [{ text: 'Which branch?', mediaType: 'text/plain' }] }]);
  assert.deepEqual(resultOf(await getTask(door.url, asked.id)), asked);

  const done = taskOf(await sendMessage(door.url, 'main', { taskId: asked.id, contextId: asked.contextId }));
  assert.equal(done.id, asked.id);
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  assertStatusMessage(done, 'task completed');
  assert.deepEqual(done.artifacts, [{ artifactId: 'response', name: 'response', parts: [{ text: 'deployed main', mediaType: 'text/plain' }] }]);
  assert.deepEqual(resultOf(await getTask(door.url, asked.id)), done);
});

test('a reply without a contextId continues the task in its own context', async () => {
  const asked = taskOf(await send(door.url, 'deploy again', { contextId: 'deploy-ctx' }));
  const done = taskOf(await sendMessage(door.url, 'dev', { taskId: asked.id }));
  assert.equal(done.contextId, 'deploy-ctx');
  assert.equal(done.artifacts[0].parts[0].text, 'deployed dev');
});

test('a reply with returnImmediately answers the task WORKING', async () => {
  const asked = taskOf(await send(door.url, 'deploy now'));
  const resumed = taskOf(await sendMessage(door.url, 'release', { taskId: asked.id }, { returnImmediately: true }));
  assert.equal(resumed.id, asked.id);
  assert.equal(resumed.status.state, 'TASK_STATE_WORKING');
  assert.equal(resumed.status.message, undefined);
  assert.equal(resumed.artifacts, undefined, 'the prompt artifact goes once the reply arrives');
  const done = await waitForState(door.url, asked.id, 'TASK_STATE_COMPLETED');
  assert.equal(done.artifacts[0].parts[0].text, 'deployed release');
});

test('two concurrent replies: one is taken, the other is refused -32004 naming the state the task moved on to', async () => {
  for (let i = 0; i < 3; i++) {
    const asked = taskOf(await send(door.url, 'deploy twice'));
    const [x, y] = await Promise.all([
      sendMessage(door.url, 'x', { taskId: asked.id }, { returnImmediately: true }),
      sendMessage(door.url, 'y', { taskId: asked.id }, { returnImmediately: true }),
    ]);
    const [taken, refused] = x.json.result ? [x, y] : [y, x];
    assert.equal(taskOf(taken).status.state, 'TASK_STATE_WORKING');
    assertRpcError(refused, -32004);
    assert.equal(refused.json.error.data[0].metadata.taskId, asked.id);
    assert.ok(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'].includes(refused.json.error.data[0].metadata.state), refused.text);
    const done = await waitForState(door.url, asked.id, 'TASK_STATE_COMPLETED');
    assert.equal(done.artifacts[0].parts[0].text, taken === x ? 'deployed x' : 'deployed y');
  }
});

test('a reply naming another contextId is refused -32602 and the task keeps waiting', async () => {
  const asked = taskOf(await send(door.url, 'deploy later', { contextId: 'ctx-one' }));
  assertRpcError(await sendMessage(door.url, 'main', { taskId: asked.id, contextId: 'ctx-two' }), -32602);
  assert.deepEqual(resultOf(await getTask(door.url, asked.id)), asked, 'nothing was delivered');
  const done = taskOf(await sendMessage(door.url, 'main', { taskId: asked.id, contextId: 'ctx-one' }));
  assert.equal(done.artifacts[0].parts[0].text, 'deployed main');
});

test('a message naming a WORKING or SUBMITTED task is refused -32004 naming its state', async () => {
  const working = taskOf(await send(door.url, 'nap first', {}, { returnImmediately: true }));
  const queued = taskOf(await send(door.url, 'nap second', {}, { returnImmediately: true }));
  await waitForState(door.url, working.id, 'TASK_STATE_WORKING');
  assert.equal(resultOf(await getTask(door.url, queued.id)).status.state, 'TASK_STATE_SUBMITTED');
  assertRpcError(await sendMessage(door.url, 'hello', { taskId: working.id }), -32004, /TASK_STATE_WORKING/, {
    taskId: working.id,
    state: 'TASK_STATE_WORKING',
  });
  assertRpcError(await sendMessage(door.url, 'hello', { taskId: queued.id }), -32004, /TASK_STATE_SUBMITTED/, {
    taskId: queued.id,
    state: 'TASK_STATE_SUBMITTED',
  });
  assert.equal(resultOf(await cancelTask(door.url, queued.id)).status.state, 'TASK_STATE_CANCELED');
  assert.equal(resultOf(await cancelTask(door.url, working.id)).status.state, 'TASK_STATE_CANCELED');
  assertRpcError(await sendMessage(door.url, 'hello', { taskId: working.id }), -32004, /TASK_STATE_CANCELED/, {
    taskId: working.id,
    state: 'TASK_STATE_CANCELED',
  });
});

test('a message naming an ended task is refused -32004 and the task is left unchanged', async () => {
  const done = taskOf(await send(door.url, 'say done'));
  assertRpcError(await sendMessage(door.url, 'more', { taskId: done.id }), -32004, /TASK_STATE_COMPLETED/, { taskId: done.id, state: 'TASK_STATE_COMPLETED' });
  assertRpcError(await sendMessage(door.url, 'more', { taskId: done.id }, { returnImmediately: true }), -32004, undefined, {
    taskId: done.id,
    state: 'TASK_STATE_COMPLETED',
  });
  assert.deepEqual(resultOf(await getTask(door.url, done.id)), done);
});

test('a message naming an unknown task is refused -32001 with metadata.taskId', async () => {
  const unknown = 'tsk_00000000000000000000000000000000';
  assertRpcError(await sendMessage(door.url, 'hello', { taskId: unknown }), -32001, 'Task not found', { taskId: unknown });
  assertRpcError(await sendMessage(door.url, 'hello', { taskId: 'not-even-an-id' }), -32001, 'Task not found', { taskId: 'not-even-an-id' });
});

test('a script fail: ends the task FAILED with the failure as its status message and no artifacts', async () => {
  const task = taskOf(await send(door.url, 'break it'));
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assertStatusMessage(task, 'the driver failed');
  assert.equal(task.artifacts, undefined);
  assert.deepEqual(resultOf(await getTask(door.url, task.id)), task);
});

test('a task that uses every inference turn fails with max_turns exceeded', async () => {
  const task = taskOf(await send(door.url, 'loop forever'));
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assertStatusMessage(task, 'max_turns exceeded: the task used all 4 inference turns');
  const inferences = readTrace(door.recordsDir).filter((r) => r.type === 'inference' && r.task_id === task.id);
  assert.deepEqual(
    inferences.map((r) => r.turn),
    [1, 2, 3, 4],
  );
});

test('a real bash tool call: its exit code and output reach the answer, and out/result.txt holds it', async () => {
  const task = taskOf(await send(door.url, 'exit 3'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', 'a failing command is a tool result, not a failed task');
  assert.equal(task.artifacts[0].parts[0].text, 'code=3 out=hello-42 err=oops');
  assert.equal(await resultFileSettled(door.recordsDir), 'code=3 out=hello-42 err=oops');
  const call = readTrace(door.recordsDir).find((r) => r.type === 'tool_call' && r.task_id === task.id);
  assert.equal(call?.tool, 'bash');
  assert.equal(call?.status, 'passed');
  assert.equal(call?.exit_code, 3);
});

test('an undeclared tool is refused; the task continues and the trace records the call as an error', async () => {
  const task = taskOf(await send(door.url, 'undeclared tool'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(task.artifacts[0].parts[0].text, 'after still-running');
  const calls = readTrace(door.recordsDir).filter((r) => r.type === 'tool_call' && r.task_id === task.id);
  assert.deepEqual(
    calls.map((r) => [r.tool, r.status]),
    [
      ['python3', 'error'],
      ['bash', 'passed'],
    ],
  );
});

/**
 * out/result.txt as it stands once the door's write of it has landed: it is written off the hot path, a moment after
 * the completion is reported (docs/decisions.md, "out/result.txt"), so a reader waits until it stops changing.
 */
async function resultFileSettled(recordsDir: string): Promise<string> {
  const file = path.join(recordsDir, 'out', 'result.txt');
  let last: string | null = null;
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (now !== null && now === last) return now;
    last = now;
  }
  throw new Error('out/result.txt did not settle');
}

test('out/result.txt holds the latest answer', async () => {
  await send(door.url, 'say first answer');
  assert.equal(await resultFileSettled(door.recordsDir), 'first answer');
  await send(door.url, 'break again');
  assert.equal(await resultFileSettled(door.recordsDir), 'first answer', 'a failed task writes no answer');
  await send(door.url, 'say second answer');
  assert.equal(await resultFileSettled(door.recordsDir), 'second answer');
});
