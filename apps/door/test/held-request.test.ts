/** The three endings of a held SendMessage (seed 000, "Answers"): the task settles, the session stops, the client leaves. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertStatusMessage, resultOf, taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { rpc, send, waitForState } from './support/rpc.js';
import { getTask, lifecycleManifest, listTasks, readTrace, sendAbortable, sleep, taskInContext } from './support/tasks.js';

const SCRIPT = `
rules:
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^doze'
    turns:
      - sleep_ms: 600
        answer: dozed
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(lifecycleManifest({ acceptance: 'queue' }), SCRIPT));
});
after(() => door.stop());

test('the task settles: ending or pausing for input answers the held request', async () => {
  const began = Date.now();
  const done = taskOf(await send(door.url, 'doze off'));
  assert.ok(Date.now() - began >= 550, 'held while the task ran');
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(done.artifacts[0].parts[0].text, 'dozed');
  const paused = taskOf(await send(door.url, 'deploy'));
  assert.equal(paused.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const resumed = taskOf(await send(door.url, 'main', { taskId: paused.id }));
  assert.equal(resumed.status.state, 'TASK_STATE_COMPLETED');
});

test('murmur.StopSession answers the held request with the task as it stands: CANCELED', async () => {
  const held = send(door.url, 'nap deeply', { contextId: 'held-stop' });
  const working = await taskInContext(door.url, 'held-stop', 'TASK_STATE_WORKING');
  const stop = resultOf(await rpc(door.url, 'murmur.StopSession', {}));
  assert.deepEqual(stop.canceled, [working.id]);
  const answered = taskOf(await held);
  assert.equal(answered.id, working.id);
  assert.equal(answered.status.state, 'TASK_STATE_CANCELED');
  assertStatusMessage(answered, 'task canceled');
  assert.deepEqual(resultOf(await getTask(door.url, working.id)), answered);
});

test('the client disconnects: the task runs on to COMPLETED, and GetTask and ListTasks see it', async () => {
  const held = sendAbortable(door.url, 'doze again', { contextId: 'held-gone' });
  const working = await taskInContext(door.url, 'held-gone', 'TASK_STATE_WORKING');
  held.abort();
  assert.equal(((await held.done) as Error).name, 'AbortError');
  assert.equal(resultOf(await getTask(door.url, working.id)).status.state, 'TASK_STATE_WORKING', 'nothing is cancelled');
  const done = await waitForState(door.url, working.id, 'TASK_STATE_COMPLETED', 5000);
  assert.equal(done.artifacts[0].parts[0].text, 'dozed');
  const listed = resultOf(await listTasks(door.url, { contextId: 'held-gone', includeArtifacts: true }));
  assert.deepEqual(listed.tasks, [done]);
  await sleep(50);
  const records = readTrace(door.recordsDir).filter((r) => r.task_id === working.id);
  assert.deepEqual(
    records.filter((r) => r.type === 'task_end').map((r) => r.state),
    ['TASK_STATE_COMPLETED'],
  );
  assert.equal(door.stderr(), '', 'nothing is logged');
  const log = path.join(door.recordsDir, 'logs', 'door.log');
  assert.equal(existsSync(log) ? readFileSync(log, 'utf8') : '', '', 'nothing is logged');
  // The door still answers after writing to a client that left.
  assert.equal(taskOf(await send(door.url, 'doze once more')).status.state, 'TASK_STATE_COMPLETED');
});
