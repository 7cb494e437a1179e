/** murmur.WatchSession (seed 000 "murmur.WatchSession"; docs/streaming.md; seed 001 replay, gap, heartbeat, capsule-closed). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { rpc, send } from './support/rpc.js';
import {
  assertEnvelope,
  delay,
  DOOR_URI,
  frameOf,
  isStatus,
  kindOf,
  messageFrameProblem,
  openStream,
  runDoorWithEnv,
  STREAM_URI,
  type SseEvent,
  type SseReader,
  sendStreamingStream,
  summarize,
  taskIdOf,
  watchSession,
} from './support/sse.js';

const HEARTBEAT_MS = 200;
const FLOOD = 600;

const SCRIPT = `
rules:
  - match: '^think'
    turns:
      - thinking: ["Two and two make four."]
        text: ["fo", "ur"]
        answer: four
  - match: '^paced'
    turns:
      - text: ["p"]
        repeat: 24
        pace_ms: 40
        answer: paced
  - match: '^flood'
    turns:
      - text: ["x"]
        repeat: ${FLOOD}
        answer: flooded
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

function manifest(conversation: 'stateless' | 'threaded'): string {
  return [
    'name: watch-capsule',
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    `  conversation: ${conversation}`,
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 4',
    '',
  ].join('\n');
}

/** The events after the connection-ack that a fresh connection writes at once (its replay), read after a pause. */
async function replayOf(url: string, lastEventId?: string): Promise<SseEvent[]> {
  const stream = await watchSession(url, { lastEventId });
  await stream.waitForCount(1);
  await delay(150);
  stream.abort();
  assert.equal(frameOf(stream.events[0])?.frame, 'connection-ack');
  return stream.events.slice(1);
}

const results = (events: SseEvent[]) => events.map((e) => [e.id ?? null, e.data.result]);

let door: DoorProcess;
/** A connection open from the door's start, keeping the raw body: it sees every live event. */
let live: SseReader;
before(async () => {
  door = await runDoorWithEnv(makeCapsule(manifest('stateless'), SCRIPT), { MURMUR_HEARTBEAT_MS: String(HEARTBEAT_MS) });
  live = await watchSession(door.url, { keepRaw: true });
});
after(async () => {
  live?.abort();
  await door.stop();
});

test('the answer: headers exactly, connection-ack first, an empty buffer replays nothing, and frames without any A2A-Extensions header', async () => {
  const stream = await watchSession(door.url, { id: 'w-1' });
  assert.equal(stream.response.status, 200);
  assert.equal(stream.headers.get('content-type'), 'text/event-stream');
  assert.equal(stream.headers.get('cache-control'), 'no-cache');
  assert.equal(stream.headers.get('connection'), 'keep-alive');
  assert.equal(stream.headers.get('a2a-extensions'), `${DOOR_URI}, ${STREAM_URI}`);
  assert.equal(stream.headers.get('content-length'), null);
  const [ack] = await stream.waitForCount(1);
  assertEnvelope(ack, 'w-1');
  assert.equal(messageFrameProblem(ack, 'connection-ack'), null);
  assert.deepEqual(frameOf(ack), { frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' });
  await delay(100);
  assert.equal(stream.events.length, 1, 'nothing buffered yet');

  const done = (await send(door.url, 'think')).json.result.task;
  const events = await stream.until(() => (stream.events.some((e) => isStatus(e, 'TASK_STATE_COMPLETED')) ? stream.events : undefined), 'the task to complete');
  for (const e of events) assertEnvelope(e, 'w-1');
  assert.deepEqual(
    events.slice(1).map((e) => [kindOf(e), e.id ?? null]),
    [
      ['status', null],
      ['status', '0'],
      ['frame:thinking', '1'],
      ['frame:text', '2'],
      ['frame:text', '3'],
      ['frame:text', '4'],
      ['artifact', '5'],
      ['status', '6'],
    ],
    summarize(events),
  );
  const submitted = events[1].data.result.statusUpdate;
  assert.equal(submitted.taskId, done.id);
  assert.equal(submitted.status.state, 'TASK_STATE_SUBMITTED');
  assert.equal(submitted.status.message, undefined);
  assert.ok(events.slice(1).every((e) => taskIdOf(e) === done.id));
  stream.abort();
});

test('heartbeats: `:heartbeat` every MURMUR_HEARTBEAT_MS from the opening, on an idle connection', async () => {
  const stream = await watchSession(door.url);
  await delay(HEARTBEAT_MS * 5 + 100);
  stream.abort();
  const beats = stream.comments;
  assert.ok(beats.length >= 4 && beats.length <= 6, `${beats.length} heartbeats in ${HEARTBEAT_MS * 5 + 100} ms`);
  assert.ok(beats.every((c) => c.text === 'heartbeat'));
  const first = beats[0].at - stream.openedAt;
  assert.ok(first >= HEARTBEAT_MS * 0.25 && first <= HEARTBEAT_MS * 2, `first heartbeat after ${first} ms`);
});

test('heartbeats are not reset by events: they keep their interval while a task writes an event every 40 ms', async () => {
  const stream = await watchSession(door.url);
  await stream.waitForCount(1);
  const start = Date.now();
  const task = (await send(door.url, 'paced')).json.result.task;
  const end = Date.now();
  stream.abort();
  const during = stream.comments.filter((c) => c.at >= start && c.at <= end);
  const events = stream.events.filter((e) => taskIdOf(e) === task.id);
  assert.ok(events.length >= 24, `${events.length} events`);
  assert.ok(end - start >= 900, `the task wrote for ${end - start} ms`);
  assert.ok(during.length >= Math.floor((end - start) / HEARTBEAT_MS) - 1, `${during.length} heartbeats in ${end - start} ms of events`);
  const gaps = during.slice(1).map((c, i) => c.at - during[i].at);
  assert.ok(
    gaps.every((g) => g < HEARTBEAT_MS * 2),
    `gaps ${gaps}`,
  );
});

test('events of several tasks on one connection, which stays open across tasks', async () => {
  const one = (await send(door.url, 'say one')).json.result.task;
  const two = (await send(door.url, 'say two')).json.result.task;
  await live.waitForEvent((e) => taskIdOf(e) === two.id && isStatus(e, 'TASK_STATE_COMPLETED'), 'the second task’s end');
  for (const task of [one, two]) {
    const events = live.events.filter((e) => taskIdOf(e) === task.id);
    assert.deepEqual(
      events.map((e) => [kindOf(e), e.id ?? null]),
      [
        ['status', null],
        ['status', '0'],
        ['frame:text', '1'],
        ['artifact', '1'],
        ['status', '2'],
      ],
      summarize(events),
    );
  }
  await delay(HEARTBEAT_MS);
  assert.equal(live.ended, false, 'a terminal status does not end WatchSession');
});

test('the raw wire: `id:` then `data:` lines, one data line, no `event:` lines, `\\n` endings, `:heartbeat\\n\\n`', async () => {
  await delay(HEARTBEAT_MS + 50);
  const raw = live.raw.slice(0, live.raw.lastIndexOf('\n\n') + 2);
  assert.ok(!raw.includes('\r'), 'no \\r');
  assert.ok(!/^event:/m.test(raw), 'no event: lines');
  assert.ok(raw.includes(':heartbeat\n\n'));
  const blocks = raw.split('\n\n');
  assert.equal(blocks.pop(), '', 'every block ends with a blank line');
  const shapes = blocks.map((block) => {
    if (block === ':heartbeat') return 'heartbeat';
    if (/^id: (0|[1-9]\d*)\ndata: \{[^\n]*\}$/.test(block)) return 'id+data';
    if (/^data: \{[^\n]*\}$/.test(block)) return 'data';
    return `bad: ${JSON.stringify(block.slice(0, 120))}`;
  });
  assert.deepEqual(
    shapes.filter((s) => s.startsWith('bad')),
    [],
  );
  assert.ok(shapes.includes('id+data') && shapes.includes('data') && shapes.includes('heartbeat'));
  // The parser read exactly the blocks on the wire.
  assert.equal(shapes.filter((s) => s !== 'heartbeat').length, live.events.length);
  assert.equal(shapes.filter((s) => s === 'heartbeat').length, live.comments.length);
});

describe('replay', () => {
  test('without Last-Event-ID: the whole buffer after the connection-ack, exactly the live events that carry an id', async () => {
    const replay = await replayOf(door.url);
    const withIds = live.events.filter((e) => e.id !== undefined);
    assert.ok(replay.length > 0 && replay.length < 512);
    assert.deepEqual(results(replay), results(withIds));
  });

  test('from Last-Event-ID N: every buffered event whose id is greater than N, in buffer order', async () => {
    const all = await replayOf(door.url);
    for (const n of ['0', '1', '3']) {
      const replay = await replayOf(door.url, n);
      assert.deepEqual(results(replay), results(all.filter((e) => BigInt(e.id!) > BigInt(n))), `from ${n}`);
      assert.ok(!replay.some((e) => frameOf(e)?.frame === 'gap'));
    }
  });

  test('a Last-Event-ID that is not an unsigned 64-bit decimal is ignored: the whole buffer', async () => {
    const all = await replayOf(door.url);
    for (const value of ['abc', '-1', '18446744073709551616', '1.5']) {
      assert.deepEqual(results(await replayOf(door.url, value)), results(all), value);
    }
  });

  test('past 512 events: a gap frame naming the oldest id when Last-Event-ID is older, then the whole buffer; none when oldest ≤ N+1', async () => {
    const flood = (await send(door.url, 'flood')).json.result.task;
    assert.equal(flood.status.state, 'TASK_STATE_COMPLETED');
    // The flood task alone wrote ids 0 … FLOOD+3: its working status, FLOOD chunks, the final text, the artifact, COMPLETED.
    const last = FLOOD + 3;
    const oldest = last - 511;
    const all = await replayOf(door.url);
    assert.equal(all.length, 512);
    assert.ok(all.every((e) => taskIdOf(e) === flood.id));
    assert.deepEqual(
      all.map((e) => e.id),
      Array.from({ length: 512 }, (_, i) => String(oldest + i)),
    );

    const fromZero = await replayOf(door.url, '0');
    assert.equal(fromZero.length, 513);
    assert.equal(messageFrameProblem(fromZero[0], 'gap'), null);
    assert.deepEqual(frameOf(fromZero[0]), { frame: 'gap', firstAvailableId: String(oldest) });
    assert.deepEqual(results(fromZero.slice(1)), results(all));

    const justBelow = await replayOf(door.url, String(oldest - 2));
    assert.equal(frameOf(justBelow[0])?.frame, 'gap', 'oldest > N + 1');
    assert.equal(justBelow.length, 513);

    const adjacent = await replayOf(door.url, String(oldest - 1));
    assert.ok(!adjacent.some((e) => frameOf(e)?.frame === 'gap'), 'oldest = N + 1: no gap');
    assert.deepEqual(results(adjacent), results(all));

    const tail = await replayOf(door.url, String(last - 3));
    assert.deepEqual(
      tail.map((e) => e.id),
      [String(last - 2), String(last - 1), String(last)],
    );
  });
});

test('task streams: the gap is judged on the followed task’s events, so an overflow of another task’s ids writes none; heartbeats too', async () => {
  const own = await sendStreamingStream(door.url, 'nap');
  const [opening] = await own.waitForCount(1);
  const id = opening.data.result.task.id;
  await own.waitForEvent((e) => isStatus(e, 'TASK_STATE_WORKING', 'inference turn 1'), 'the nap to start');
  const buffer = await replayOf(door.url);
  const oldest = buffer[0].id!;
  assert.ok(BigInt(oldest) > 1n, 'the buffer has overflowed');

  // Delivered: the nap's id-0 status, still buffered. Nothing of the nap was lost, so no gap and no repeat
  // (docs/decisions.md, "A task stream's gap"; the gap carrier itself: task-stream-gap.test.ts).
  const activated = await openStream(door.url, 'SubscribeToTask', { id }, { activate: true, lastEventId: '0' });
  const plain = await openStream(door.url, 'SubscribeToTask', { id }, { lastEventId: '0' });
  await activated.waitForCount(1);
  await plain.waitForCount(1);
  await delay(HEARTBEAT_MS * 2);
  for (const stream of [activated, plain]) {
    assert.deepEqual(
      stream.events.map((e) => [kindOf(e), e.id ?? null]),
      [['task', null]],
    );
  }
  for (const stream of [own, activated, plain]) assert.ok(stream.comments.length >= 1 && stream.comments.every((c) => c.text === 'heartbeat'));

  await rpc(door.url, 'CancelTask', { id });
  for (const stream of [own, activated, plain]) {
    const events = await stream.waitForEnd(5000);
    assert.ok(isStatus(events.at(-1)!, 'TASK_STATE_CANCELED'), summarize(events));
  }
});

test('on SIGTERM: live tasks are canceled (their streams get CANCELED and end), then capsule-closed is the last event and the connection ends', async () => {
  const watcher = await watchSession(door.url);
  const own = await sendStreamingStream(door.url, 'nap');
  const [opening] = await own.waitForCount(1);
  const id = opening.data.result.task.id;
  await own.waitForEvent((e) => isStatus(e, 'TASK_STATE_WORKING', 'inference turn 1'), 'the nap to start');
  assert.equal((await rpc(door.url, 'GetTask', { id })).json.result.status.state, 'TASK_STATE_WORKING');
  const exited = door.stop('SIGTERM');

  const ownEvents = await own.waitForEnd(5000);
  assert.ok(isStatus(ownEvents.at(-1)!, 'TASK_STATE_CANCELED'), summarize(ownEvents));

  for (const stream of [watcher, live]) {
    const events = await stream.waitForEnd(5000);
    const last = events.at(-1)!;
    assert.equal(messageFrameProblem(last, 'capsule-closed'), null, summarize(events.slice(-3)));
    assert.deepEqual(frameOf(last), { frame: 'capsule-closed' });
    const canceled = events.findIndex((e) => taskIdOf(e) === id && isStatus(e, 'TASK_STATE_CANCELED'));
    assert.ok(canceled >= 0 && canceled < events.length - 1, 'the task’s CANCELED status comes before capsule-closed');
    assert.equal(stream.error, null, 'the door ended the body cleanly');
  }
  await exited;
});

describe('conversationMode', () => {
  let threaded: DoorProcess;
  before(async () => {
    threaded = await runDoor(makeCapsule(manifest('threaded'), SCRIPT));
  });
  after(() => threaded.stop());

  test('connection-ack names lifecycle.conversation: threaded', async () => {
    const stream = await watchSession(threaded.url);
    const [ack] = await stream.waitForCount(1);
    stream.abort();
    assert.deepEqual(frameOf(ack), { frame: 'connection-ack', role: 'observer', conversationMode: 'threaded' });
  });
});
