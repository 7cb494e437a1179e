/**
 * Byte budgets beside the counts (issue 16): the replay buffer, a connection's queue, the held requests and the body
 * limit. Unit tests of each piece; the whole door under a hostile sequence is memory-ceiling.test.ts.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { HELD_REQUEST_MIN_BYTES, HeldRequests, requestBytes } from '../src/methods/held-requests.js';
import { bodyLimitFor } from '../src/rpc/rpc-routes.js';
import { REPLAY_BYTES, ReplayBuffer } from '../src/streaming/replay-buffer.js';
import { SseConnection } from '../src/streaming/sse-connection.js';
import type { StreamEvent } from '../src/streaming/stream-event.js';

const event = (id: number, chars: number): StreamEvent => ({ id: BigInt(id), taskId: 't', murmur: false, result: JSON.stringify({ x: 'y'.repeat(chars) }), change: null, state: null });

describe('the replay buffer', () => {
  test('holds at most its byte budget beside 512 events; a replay from before it answers a gap', () => {
    const buffer = new ReplayBuffer(512, 100_000);
    for (let i = 0; i < 100; i++) buffer.push(event(i, 10_000));
    assert.ok(buffer.heldBytes <= 100_000, `${buffer.heldBytes}`);
    assert.equal(buffer.size, 4);
    const replay = buffer.replay(0n);
    assert.equal(replay.gapFirstAvailableId, 96n);
    assert.deepEqual(replay.events.map((e) => e.id), [96n, 97n, 98n, 99n]);
    assert.equal(buffer.replay(96n).gapFirstAvailableId, null);
  });

  test('the newest event stays even alone over the budget; the count bound holds as before', () => {
    const buffer = new ReplayBuffer(512, 1_000);
    buffer.push(event(1, 10));
    buffer.push(event(2, 50_000));
    assert.deepEqual(buffer.events().map((e) => e.id), [2n]);
    const counted = new ReplayBuffer();
    for (let i = 0; i < 2_000; i++) counted.push(event(i, 1));
    assert.equal(counted.size, 512);
    assert.equal(counted.events()[0].id, 1488n);
    assert.equal(REPLAY_BYTES, 4 * 1024 * 1024);
  });
});

/** A response whose socket never drains: every write after the first reports backpressure. */
class StalledResponse extends EventEmitter {
  written = '';
  write(chunk: Buffer | string): boolean {
    this.written += chunk.toString();
    return false;
  }
  end(): void {}
}

describe('a connection queue', () => {
  test('drops its oldest events past its bytes, and lagged counts them', async () => {
    const res = new StalledResponse();
    const connection = new SseConnection(res as unknown as ServerResponse, 1, {
      heartbeatMs: 60_000,
      queueBytes: 100_000,
      lagged: (dropped) => ({ id: null, taskId: null, murmur: true, result: JSON.stringify({ lagged: dropped }), change: null, state: null }),
    });
    connection.writeNow([event(0, 10)]);
    for (let i = 1; i <= 50; i++) connection.send(event(i, 10_000));
    res.emit('drain');
    await new Promise((resolve) => setImmediate(resolve));
    const ids = [...res.written.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.deepEqual(ids.slice(1), [47, 48, 49, 50], 'only what fits in 100,000 bytes is kept');
    assert.match(res.written, /"lagged":46/);
    res.emit('close');
    assert.ok(connection.isClosed);
  });
});

describe('held requests', () => {
  test('are counted by bytes, at least 16 KiB each; past the budget none is taken until one is released', () => {
    const held = new HeldRequests(100_000);
    const first = held.take(60_000);
    assert.ok(first);
    assert.equal(held.take(50_000), null);
    const small = held.take(1);
    assert.ok(small);
    assert.equal(held.heldBytes, 60_000 + HELD_REQUEST_MIN_BYTES);
    first();
    first();
    assert.equal(held.heldBytes, HELD_REQUEST_MIN_BYTES);
    assert.equal(requestBytes({ 'content-length': '1234' }, 5), 1234);
    assert.equal(requestBytes({}, 5), 10);
  });
});

describe('the body limit', () => {
  test('fits base64 images at their limits plus 1 MiB, and is 8 MiB at least', () => {
    assert.equal(bodyLimitFor(100, 1), 8 * 1024 * 1024);
    assert.equal(bodyLimitFor(5 * 1024 * 1024, 4), Math.ceil((20 * 1024 * 1024 * 4) / 3) + 1024 * 1024);
  });
});
