/**
 * A task stream's gap is judged on the followed task's events (docs/decisions.md, "A task stream's gap";
 * docs/streaming.md, "Replay"): another task pushing the session's ids up causes no gap and no re-delivery, and a
 * gap means something of the followed task was evicted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { carrierProblem, delay, frameOf, INPUT_WAIT_START, kindOf, type SseEvent, subscribe, summarize, taskIdOf, watchSession } from './support/sse.js';

const FLOOD = 600;
const SCRIPT = `
rules:
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^flood'
    turns:
      - text: ["x"]
        repeat: ${FLOOD}
        answer: flooded
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue' }), SCRIPT));
});
after(() => door.stop());

/** A SubscribeToTask with the stream extension and Last-Event-ID, read until it has been quiet for 300 ms. */
async function resume(taskId: string, lastEventId: string): Promise<SseEvent[]> {
  const answer = await subscribe(door.url, taskId, { activate: true, lastEventId });
  assert.equal(answer.kind, 'stream');
  if (answer.kind !== 'stream') return [];
  await answer.stream.waitForCount(1);
  await delay(300);
  answer.stream.abort();
  return answer.stream.events;
}

/** The session's replay buffer, as WatchSession without Last-Event-ID replays it. */
async function buffered(): Promise<SseEvent[]> {
  const watch = await watchSession(door.url);
  await delay(300);
  watch.abort();
  return watch.events.filter((e) => e.id !== undefined);
}

async function flood(): Promise<void> {
  const done = (await send(door.url, 'flood')).json.result.task;
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
}

test('another task pushed the ids up: a resume that lost nothing writes no gap and re-sends nothing', async () => {
  await flood();
  const task = (await send(door.url, 'deploy')).json.result.task;
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  // The buffer's oldest event is the flood's, with an id far above 1: seed 001's whole-buffer rule would write a gap.
  const buffer = await buffered();
  assert.ok(BigInt(buffer[0].id!) > 1n && taskIdOf(buffer[0]) !== task.id, summarize(buffer.slice(0, 2)));
  const own = buffer.filter((e) => taskIdOf(e) === task.id);
  assert.deepEqual(
    own.map((e) => e.id),
    ['0', INPUT_WAIT_START],
  );

  // Delivered: "inference turn 1" (id 0). Resumed: the input request only.
  const fromZero = await resume(task.id, '0');
  assert.deepEqual(
    fromZero.map((e) => [kindOf(e), e.id]),
    [
      ['task', undefined],
      ['status', INPUT_WAIT_START],
    ],
    summarize(fromZero),
  );
  assert.ok(fromZero.every((e) => taskIdOf(e) === task.id));

  // Delivered everything: nothing but the opening task.
  const fromLast = await resume(task.id, INPUT_WAIT_START);
  assert.deepEqual(
    fromLast.map((e) => kindOf(e)),
    ['task'],
    summarize(fromLast),
  );
  await send(door.url, 'main', { taskId: task.id });
});

test('the buffer evicted the task’s events after the resume point: a gap, then what is left of the task', async () => {
  const task = (await send(door.url, 'deploy')).json.result.task;
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  await flood();
  assert.ok(!(await buffered()).some((e) => taskIdOf(e) === task.id), 'the flood evicted the task’s events');

  // Delivered id 0 only: the input request (INPUT_WAIT_START) was evicted, so something was lost.
  const lost = await resume(task.id, '0');
  assert.deepEqual(
    lost.map((e) => kindOf(e)),
    ['task', 'frame:gap'],
    summarize(lost),
  );
  const gap = frameOf(lost[1]);
  assert.match(gap.firstAvailableId, /^\d+$/);
  assert.equal(carrierProblem(lost[1], task.id, task.contextId, 'TASK_STATE_INPUT_REQUIRED'), null, 'the gap rides a carrier of the followed task');

  // Delivered up to the last evicted event: nothing was lost after it, so no gap.
  const whole = await resume(task.id, INPUT_WAIT_START);
  assert.deepEqual(
    whole.map((e) => kindOf(e)),
    ['task'],
    summarize(whole),
  );
  await send(door.url, 'main', { taskId: task.id });
});
