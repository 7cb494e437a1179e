/** Event ids (seed 001 "Event ids"; docs/streaming.md "Event ids"): labels from per-task, chunk, input-wait and queued-cancel counters. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send, waitForState } from './support/rpc.js';
import {
  dedupKey,
  frameOf,
  INPUT_WAIT_START,
  isStatus,
  kindOf,
  QUEUED_CANCEL_START,
  type SseEvent,
  type SseReader,
  sendStreamingStream,
  statusTextOf,
  summarize,
  taskIdOf,
  watchSession,
} from './support/sse.js';

const SCRIPT = `
rules:
  - match: '^twoturns'
    turns:
      - text: ["a", "b"]
      - text: ["c"]
        answer: abc
  - match: '^tool'
    turns:
      - thinking: ["let me look"]
        tools:
          - tool: bash
            input: { command: "echo one" }
        answer: "{{tool.stdout}}"
  - match: '^twoasks'
    turns:
      - ask: first?
      - ask: second?
      - answer: "{{reply}}"
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

const add = (base: string, n: number) => (BigInt(base) + BigInt(n)).toString();

let door: DoorProcess;
let watcher: SseReader;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue' }), SCRIPT));
  watcher = await watchSession(door.url);
});
after(async () => {
  watcher?.abort();
  await door.stop();
});

/** What the watcher saw of one task, once its terminal status arrived: [kind(or frame name) + detail, id]. */
async function seen(taskId: string): Promise<SseEvent[]> {
  await watcher.waitForEvent(
    (e) => taskIdOf(e) === taskId && kindOf(e) === 'status' && /COMPLETED|FAILED|CANCELED/.test(e.data.result.statusUpdate.status.state),
    'the task’s end',
  );
  return watcher.events.filter((e) => taskIdOf(e) === taskId);
}

function label(e: SseEvent): string {
  const frame = frameOf(e);
  if (frame) return frame.frame === 'text' ? `text:${frame.text}` : frame.frame;
  if (kindOf(e) === 'status') return `${e.data.result.statusUpdate.status.state.replace('TASK_STATE_', '')}${statusTextOf(e) ? `:${statusTextOf(e)}` : ''}`;
  return kindOf(e);
}

const shape = (events: SseEvent[]) => events.map((e) => [label(e), e.id ?? null]);

test('each task counts from 0; its chunks continue the task’s counter across inference calls; two tasks both count from 0', async () => {
  const first = (await send(door.url, 'twoturns')).json.result.task;
  const second = (await send(door.url, 'twoturns')).json.result.task;
  const expected = [
    ['SUBMITTED', null],
    ['WORKING:inference turn 1', '0'],
    ['text:a', '1'],
    ['text:b', '2'],
    ['text:', '3'],
    ['WORKING:inference turn 2', '4'],
    ['text:c', '5'],
    ['text:', '6'],
    ['artifact', '7'],
    ['COMPLETED:task completed', '8'],
  ];
  assert.deepEqual(shape(await seen(first.id)), expected);
  assert.deepEqual(shape(await seen(second.id)), expected, 'the second task counts from 0 again');
});

test('tool frames: chunks a tool emits share numbers with the artifact frame that follows them', async () => {
  const task = (await send(door.url, 'tool')).json.result.task;
  assert.deepEqual(shape(await seen(task.id)), [
    ['SUBMITTED', null],
    ['WORKING:inference turn 1', '0'],
    ['thinking', '1'],
    ['tool-call-started', '2'],
    ['tool-call-progress', '3'],
    ['artifact', '2'],
    ['WORKING:inference turn 2', '3'],
    ['text:one', '4'],
    ['artifact', '4'],
    ['COMPLETED:task completed', '5'],
  ]);
});

test('input waits: INPUT_REQUIRED is 9223372036854775807, resumed 9223372036854775808, and each wait starts again', async () => {
  const task = (await send(door.url, 'twoasks')).json.result.task;
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  await send(door.url, 'one', { taskId: task.id });
  const done = (await send(door.url, 'two', { taskId: task.id })).json.result.task;
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  const events = await seen(task.id);
  assert.deepEqual(shape(events), [
    ['SUBMITTED', null],
    ['WORKING:inference turn 1', '0'],
    ['INPUT_REQUIRED:first?', INPUT_WAIT_START],
    ['WORKING:resumed', add(INPUT_WAIT_START, 1)],
    ['WORKING:inference turn 2', '1'],
    ['INPUT_REQUIRED:second?', INPUT_WAIT_START],
    ['WORKING:resumed', add(INPUT_WAIT_START, 1)],
    ['WORKING:inference turn 3', '2'],
    ['text:two', '3'],
    ['artifact', '3'],
    ['COMPLETED:task completed', '4'],
  ]);
  assert.equal(INPUT_WAIT_START, '9223372036854775807');
});

test('a queued task canceled gets the queued-cancel counter: 2305843009213693951, then the next', async () => {
  const running = (await send(door.url, 'nap', {}, { returnImmediately: true })).json.result.task;
  await waitForState(door.url, running.id, 'TASK_STATE_WORKING');
  const queued = [];
  for (const text of ['say q1', 'say q2']) {
    const task = (await send(door.url, text, {}, { returnImmediately: true })).json.result.task;
    assert.equal(task.status.state, 'TASK_STATE_SUBMITTED');
    queued.push(task);
  }
  for (const task of queued) {
    const canceled = (await rpc(door.url, 'CancelTask', { id: task.id })).json.result;
    assert.equal(canceled.status.message.parts[0].text, 'task canceled before it started');
  }
  await rpc(door.url, 'CancelTask', { id: running.id });
  assert.deepEqual(shape(await seen(queued[0].id)), [
    ['SUBMITTED', null],
    ['CANCELED:task canceled before it started', QUEUED_CANCEL_START],
  ]);
  assert.deepEqual(shape(await seen(queued[1].id)), [
    ['SUBMITTED', null],
    ['CANCELED:task canceled before it started', add(QUEUED_CANCEL_START, 1)],
  ]);
  assert.deepEqual(shape(await seen(running.id)), [
    ['SUBMITTED', null],
    ['WORKING:inference turn 1', '0'],
    ['CANCELED:task canceled', '1'],
  ]);
  assert.equal(QUEUED_CANCEL_START, '2305843009213693951');
});

test('a task’s own SendStreamingMessage stream carries the same ids as the watcher', async () => {
  const stream = await sendStreamingStream(door.url, 'twoturns', { activate: true });
  const events = await stream.waitForEnd();
  const id = taskIdOf(events[0])!;
  const watched = (await seen(id)).filter((e) => e.id !== undefined);
  assert.deepEqual(
    events.filter((e) => e.id !== undefined).map((e) => [e.id, e.data.result]),
    watched.map((e) => [e.id, e.data.result]),
    summarize(events),
  );
});

test('ids are labels, not a sequence: they repeat across tasks, yet (task, kind, id) names each event of a task once', async () => {
  const ids = watcher.events.filter((e) => e.id !== undefined);
  assert.ok(ids.filter((e) => e.id === '0').length >= 4, 'every task starts at 0');
  // Two input waits of one task reuse their ids (seed 001): the key repeats only there.
  const keys = new Map<string, number>();
  for (const e of ids) keys.set(dedupKey(e), (keys.get(dedupKey(e)) ?? 0) + 1);
  const repeated = [...keys].filter(([, n]) => n > 1).map(([k]) => k.split('|').slice(1).join('|'));
  assert.deepEqual(repeated.sort(), [`status|${INPUT_WAIT_START}`, `status|${add(INPUT_WAIT_START, 1)}`].sort());
  assert.ok(watcher.events.filter((e) => isStatus(e, 'TASK_STATE_SUBMITTED')).every((e) => e.id === undefined));
});
