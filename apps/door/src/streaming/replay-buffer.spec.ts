import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPLAY_BYTES, ReplayBuffer } from './replay-buffer.js';
import type { StreamEvent } from './stream-event.js';

const event = (id: bigint): StreamEvent => ({ id, taskId: 't', murmur: false, result: '{}', change: null, state: null });
const ids = (events: StreamEvent[]) => events.map((e) => e.id);

test('an empty buffer replays nothing, with no gap', () => {
  assert.deepEqual(new ReplayBuffer(4).replay(7n), { gapFirstAvailableId: null, events: [] });
});

test('no Last-Event-ID: the whole buffer in order', () => {
  const buffer = new ReplayBuffer(4);
  for (const id of [5n, 6n, 7n]) buffer.push(event(id));
  assert.deepEqual(ids(buffer.replay(null).events), [5n, 6n, 7n]);
});

test('a full buffer evicts the oldest', () => {
  const buffer = new ReplayBuffer(3);
  for (const id of [1n, 2n, 3n, 4n, 5n]) buffer.push(event(id));
  assert.deepEqual(ids(buffer.events()), [3n, 4n, 5n]);
});

test('the oldest id above N + 1: a gap naming it, then every event (seed 001, "Replay")', () => {
  const buffer = new ReplayBuffer(3);
  for (const id of [1n, 2n, 3n, 4n, 5n]) buffer.push(event(id));
  assert.deepEqual(buffer.replay(1n).gapFirstAvailableId, 3n);
  assert.deepEqual(ids(buffer.replay(1n).events), [3n, 4n, 5n]);
});

test('otherwise every event whose id is above N, compared by id, not position', () => {
  const buffer = new ReplayBuffer(8);
  for (const id of [0n, 1n, 2n, 0n, 1n, 2n]) buffer.push(event(id));
  const replay = buffer.replay(1n);
  assert.equal(replay.gapFirstAvailableId, null);
  assert.deepEqual(ids(replay.events), [2n, 2n]);
});

test('gap depends on ids, not eviction: an unevicted buffer whose oldest id is high writes one', () => {
  const buffer = new ReplayBuffer(8);
  buffer.push(event(2305843009213693951n));
  assert.equal(buffer.replay(0n).gapFirstAvailableId, 2305843009213693951n);
});

const of = (taskId: string, id: bigint): StreamEvent => ({ id, taskId, murmur: false, result: '{}', change: null, state: null });

test('a task replay resumes after the task’s event with that id, whatever other tasks pushed the ids to', () => {
  const buffer = new ReplayBuffer(8);
  for (const id of [90n, 91n, 92n]) buffer.push(of('other', id));
  for (const id of [0n, 1n, 2n]) buffer.push(of('t', id));
  assert.deepEqual(buffer.replay(1n).gapFirstAvailableId, 90n, 'the session rule gaps on the other task’s ids');
  assert.deepEqual(buffer.replayTask('t', 1n), { gapFirstAvailableId: null, events: [of('t', 2n)] });
});

test('a task replay resumes by position: a lower id after the resume point is still written', () => {
  const buffer = new ReplayBuffer(8);
  for (const id of [0n, 9223372036854775807n, 9223372036854775808n, 1n]) buffer.push(of('t', id));
  assert.deepEqual(ids(buffer.replayTask('t', 9223372036854775808n).events), [1n]);
});

test('a task replay gaps only when the buffer evicted some of the task’s events after the resume point', () => {
  const buffer = new ReplayBuffer(3);
  for (const id of [0n, 1n, 2n]) buffer.push(of('t', id));
  buffer.push(of('other', 50n));
  buffer.push(of('other', 51n));
  assert.deepEqual(buffer.replayTask('t', 0n), { gapFirstAvailableId: 2n, events: [of('t', 2n)] }, 'id 1 was evicted');
  assert.deepEqual(buffer.replayTask('t', 1n), { gapFirstAvailableId: null, events: [of('t', 2n)] }, 'the last evicted was delivered');
  assert.deepEqual(buffer.replayTask('t', 2n), { gapFirstAvailableId: null, events: [] });
});

test('a task that nothing was evicted of: no gap, its events above the id (seed 001’s comparison)', () => {
  const buffer = new ReplayBuffer(8);
  for (const id of [0n, 1n, 5n]) buffer.push(of('t', id));
  assert.deepEqual(ids(buffer.replayTask('t', 3n).events), [5n]);
  assert.equal(buffer.replayTask('t', 3n).gapFirstAvailableId, null);
});

test('an ended task’s eviction record is dropped', () => {
  const buffer = new ReplayBuffer(1);
  buffer.push(of('t', 0n));
  buffer.push(of('other', 7n));
  assert.equal(buffer.replayTask('t', 5n).gapFirstAvailableId, 7n);
  buffer.forgetTask('t');
  assert.equal(buffer.replayTask('t', 5n).gapFirstAvailableId, null);
});

/** An event whose JSON result is about `chars` bytes, for the byte budget (issue 16). */
const sized = (id: number, chars: number): StreamEvent => ({
  id: BigInt(id),
  taskId: 't',
  murmur: false,
  result: JSON.stringify({ x: 'y'.repeat(chars) }),
  change: null,
  state: null,
});

test('holds at most its byte budget beside 512 events; a replay from before it answers a gap', () => {
  const buffer = new ReplayBuffer(512, 100_000);
  for (let i = 0; i < 100; i++) buffer.push(sized(i, 10_000));
  assert.ok(buffer.heldBytes <= 100_000, `${buffer.heldBytes}`);
  assert.equal(buffer.size, 4);
  const replay = buffer.replay(0n);
  assert.equal(replay.gapFirstAvailableId, 96n);
  assert.deepEqual(
    replay.events.map((e) => e.id),
    [96n, 97n, 98n, 99n],
  );
  assert.equal(buffer.replay(96n).gapFirstAvailableId, null);
});

test('the newest event stays even alone over the byte budget; the count bound holds as before', () => {
  const buffer = new ReplayBuffer(512, 1_000);
  buffer.push(sized(1, 10));
  buffer.push(sized(2, 50_000));
  assert.deepEqual(
    buffer.events().map((e) => e.id),
    [2n],
  );
  const counted = new ReplayBuffer();
  for (let i = 0; i < 2_000; i++) counted.push(sized(i, 1));
  assert.equal(counted.size, 512);
  assert.equal(counted.events()[0].id, 1488n);
  assert.equal(REPLAY_BYTES, 4 * 1024 * 1024);
});
