import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReplayBuffer } from './replay-buffer.js';
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
