/** SubscribeToTask (seed 000 "SubscribeToTask"; docs/streaming.md "What each stream writes"). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, send, waitForState } from './support/rpc.js';
import {
  assertEnvelope,
  delay,
  frameOf,
  INPUT_WAIT_START,
  isStatus,
  isTerminalStatus,
  kindOf,
  openRpc,
  STREAM_URI,
  sendStreamingStream,
  stateOf,
  subscribe,
  summarize,
  taskIdOf,
  watchSession,
} from './support/sse.js';
import { assertRpcError } from './support/wire.js';

const SCRIPT = `
rules:
  - match: '^slowdeploy'
    turns:
      - sleep_ms: 400
        ask: Which branch?
      - text: ["deploying ", "now"]
        answer: "deployed {{reply}}"
  - match: '^deploy'
    turns:
      - ask: Which branch?
      - answer: "deployed {{reply}}"
  - match: '^nap'
    turns:
      - sleep_ms: 30000
        answer: rested
  - match: '^slow'
    turns:
      - text: ["tick "]
        repeat: 10
        pace_ms: 40
        answer: done slowly
  - match: '^say (.*)$'
    turns:
      - answer: "{{match.1}}"
default:
  turns:
    - answer: no rule
`;

let door: DoorProcess;
before(async () => {
  door = await runDoor(makeCapsule(manifestYaml({ acceptance: 'queue' }), SCRIPT));
});
after(() => door.stop());

describe('SubscribeToTask refusals are one JSON body', () => {
  for (const [name, params] of [
    ['no id', {}],
    ['an empty id', { id: '' }],
  ] as const) {
    test(`${name}: -32602 SubscribeToTask requires an id`, async () => {
      const answer = await openRpc(door.url, 'SubscribeToTask', params, { id: 'sub-1', activate: true });
      assert.equal(answer.kind, 'json');
      assertRpcError(answer as never, { code: -32602, id: 'sub-1', message: 'SubscribeToTask requires an id', metadata: null });
    });
  }

  test('a task the session never held: -32001 with metadata taskId', async () => {
    const id = 'tsk_0123456789abcdef0123456789abcdef';
    const answer = await subscribe(door.url, id, { activate: true });
    assert.equal(answer.kind, 'json');
    assertRpcError(answer as never, { code: -32001, reason: 'TASK_NOT_FOUND', metadata: { taskId: id } });
  });

  test('a task that has ended: -32004 with metadata taskId and state', async () => {
    const done = (await send(door.url, 'say over')).json.result.task;
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    const answer = await subscribe(door.url, done.id, { activate: true });
    assert.equal(answer.kind, 'json');
    assertRpcError(answer as never, { code: -32004, reason: 'UNSUPPORTED_OPERATION', metadata: { taskId: done.id, state: 'TASK_STATE_COMPLETED' } });
  });

  test('a task canceled: -32004 naming TASK_STATE_CANCELED', async () => {
    const task = (await send(door.url, 'nap', {}, { returnImmediately: true })).json.result.task;
    await rpc(door.url, 'CancelTask', { id: task.id });
    const answer = await subscribe(door.url, task.id);
    assertRpcError(answer as never, { code: -32004, metadata: { taskId: task.id, state: 'TASK_STATE_CANCELED' } });
  });
});

test('the opening task equals GetTask at that moment; the stream stays open through INPUT_REQUIRED and ends after the terminal status', async () => {
  const asked = (await send(door.url, 'deploy')).json.result.task;
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const got = (await rpc(door.url, 'GetTask', { id: asked.id })).json.result;
  const answer = await subscribe(door.url, asked.id, { id: 'sub-open' });
  assert.equal(answer.kind, 'stream');
  if (answer.kind !== 'stream') return;
  const stream = answer.stream;
  assert.equal(answer.headers.get('content-type'), 'text/event-stream');
  assert.equal(answer.headers.get('a2a-extensions'), null, 'not activated: nothing echoed');
  const [opening] = await stream.waitForCount(1);
  assertEnvelope(opening, 'sub-open');
  assert.equal(opening.id, undefined);
  assert.deepEqual(opening.data.result.task, got, 'the task as GetTask answers it');
  await delay(200);
  assert.equal(stream.ended, false, 'open while the task waits for input');
  assert.equal(stream.events.length, 1);

  const replied = await send(door.url, 'main', { taskId: asked.id }, { returnImmediately: true });
  assert.equal(replied.json.result.task.status.state, 'TASK_STATE_WORKING');
  const events = await stream.waitForEnd();
  for (const e of events) assertEnvelope(e, 'sub-open');
  assert.ok(events.every((e) => taskIdOf(e) === asked.id));
  assert.deepEqual(
    events.slice(1).map((e) => [kindOf(e), stateOf(e) ?? null]),
    [
      ['status', 'TASK_STATE_WORKING'],
      ['status', 'TASK_STATE_WORKING'],
      ['artifact', null],
      ['status', 'TASK_STATE_COMPLETED'],
    ],
    summarize(events),
  );
  assert.ok(isStatus(events[1], 'TASK_STATE_WORKING', 'resumed'));
  assert.equal(events[1].id, (BigInt(INPUT_WAIT_START) + 1n).toString());
  assert.ok(isStatus(events[2], 'TASK_STATE_WORKING', 'inference turn 2'));
  assert.deepEqual(events.at(-1)!.data.result.statusUpdate.status, (await rpc(door.url, 'GetTask', { id: asked.id })).json.result.status);
});

test('a live task: later events, INPUT_REQUIRED (the stream stays open), the reply via SendMessage, frames when activated, the end', async () => {
  const task = (await send(door.url, 'slowdeploy', {}, { returnImmediately: true })).json.result.task;
  await waitForState(door.url, task.id, 'TASK_STATE_WORKING');
  const answer = await subscribe(door.url, task.id, { activate: true });
  assert.equal(answer.kind, 'stream');
  if (answer.kind !== 'stream') return;
  assert.equal(answer.headers.get('a2a-extensions'), STREAM_URI);
  const stream = answer.stream;
  const [opening] = await stream.waitForCount(1);
  assert.equal(opening.data.result.task.id, task.id);
  assert.equal(opening.data.result.task.status.state, 'TASK_STATE_WORKING');
  const input = await stream.waitForEvent((e) => isStatus(e, 'TASK_STATE_INPUT_REQUIRED'), 'INPUT_REQUIRED');
  assert.equal(input.id, INPUT_WAIT_START);
  assert.equal(input.data.result.statusUpdate.status.message.parts[0].text, 'Which branch?');
  await delay(200);
  assert.equal(stream.ended, false, 'SubscribeToTask stays open through TASK_STATE_INPUT_REQUIRED');

  const replied = await send(door.url, 'blue', { taskId: task.id });
  assert.equal(replied.json.result.task.status.state, 'TASK_STATE_COMPLETED');
  const events = await stream.waitForEnd();
  assert.ok(
    events.every((e) => taskIdOf(e) === task.id),
    summarize(events),
  );
  assert.ok(
    events.some((e) => isStatus(e, 'TASK_STATE_WORKING', 'resumed')),
    summarize(events),
  );
  assert.deepEqual(
    events
      .map(frameOf)
      .filter((f) => f?.frame === 'text')
      .map((f) => f.text),
    ['deploying ', 'now', ''],
  );
  assert.equal(events.filter(isTerminalStatus).length, 1);
  assert.ok(isStatus(events.at(-1)!, 'TASK_STATE_COMPLETED'));
});

test('several subscribers and the task’s own SendStreamingMessage all end after the one terminal status', async () => {
  const own = await sendStreamingStream(door.url, 'slow', { activate: true });
  const [opening] = await own.waitForCount(1);
  const id = opening.data.result.task.id;
  const subscribers = await Promise.all([1, 2, 3].map(() => subscribe(door.url, id)));
  const streams = subscribers.map((s) => {
    assert.equal(s.kind, 'stream');
    return (s as Extract<typeof s, { kind: 'stream' }>).stream;
  });
  for (const stream of [own, ...streams]) {
    const events = await stream.waitForEnd();
    assert.ok(isStatus(events.at(-1)!, 'TASK_STATE_COMPLETED'), summarize(events));
    assert.ok(events.every((e) => taskIdOf(e) === id));
  }
  for (const stream of streams)
    assert.deepEqual(
      stream.events.filter((e) => frameOf(e)),
      [],
      'not activated: no frames',
    );
});

test('with Last-Event-ID: after the opening task, the replay keeps only the followed task’s events', async () => {
  const watcher = await watchSession(door.url);
  const other = (await send(door.url, 'say other')).json.result.task;
  const task = (await send(door.url, 'deploy')).json.result.task;
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const replayFrom = await watchSession(door.url);
  await delay(100);
  replayFrom.abort();
  // The buffer's events of the followed task with an id above 0, in buffer order.
  const expected = replayFrom.events.filter((e) => e.id !== undefined && BigInt(e.id) > 0n && taskIdOf(e) === task.id);
  assert.ok(expected.length >= 1);
  const answer = await subscribe(door.url, task.id, { lastEventId: '0' });
  assert.equal(answer.kind, 'stream');
  if (answer.kind !== 'stream') return;
  const events = await answer.stream.waitForCount(1 + expected.length);
  await delay(100);
  assert.equal(answer.stream.events.length, 1 + expected.length, summarize(answer.stream.events));
  assert.equal(kindOf(events[0]), 'task');
  assert.deepEqual(
    events.slice(1).map((e) => [e.id, e.data.result]),
    expected.map((e) => [e.id, e.data.result]),
  );
  assert.ok(!events.some((e) => taskIdOf(e) === other.id));
  await send(door.url, 'main', { taskId: task.id });
  await answer.stream.waitForEnd();
  watcher.abort();
});

describe('a door with task_acceptance: none', () => {
  let none: DoorProcess;
  before(async () => {
    none = await runDoor(makeCapsule(manifestYaml({ acceptance: 'none' }), SCRIPT));
  });
  after(() => none.stop());

  test('SubscribeToTask and SendStreamingMessage answer -32004 as one JSON body; WatchSession is served', async () => {
    const sub = await subscribe(none.url, 'tsk_0123456789abcdef0123456789abcdef', { activate: true });
    assert.equal(sub.kind, 'json');
    assertRpcError(sub as never, { code: -32004, reason: 'UNSUPPORTED_OPERATION', metadata: {} });
    const ssm = await openRpc(none.url, 'SendStreamingMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    assert.equal(ssm.kind, 'json');
    assertRpcError(ssm as never, { code: -32004, reason: 'UNSUPPORTED_OPERATION', metadata: {} });
    const watch = await watchSession(none.url);
    const [ack] = await watch.waitForCount(1);
    assert.equal(frameOf(ack).frame, 'connection-ack');
    watch.abort();
  });
});
