/**
 * Events are written in slices (issue 16): a stalled reader leaves at most one slice in its socket's buffer, not the
 * whole event it was reading, and the slices join to exactly the encoded event — never split inside a UTF-8 character.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { encodeSseEvent, type JsonRpcId } from '@murmur/protocol';
import { SseConnection, WRITE_SLICE_BYTES } from './sse-connection.js';
import type { StreamEvent } from './stream-event.js';

/** A response whose socket takes `accepts` writes, then backs up until 'drain' is emitted. */
class Response extends EventEmitter {
  writes: Buffer[] = [];
  ended = false;
  constructor(private accepts = Number.POSITIVE_INFINITY) {
    super();
  }
  write(chunk: Buffer | string): boolean {
    this.writes.push(Buffer.from(chunk));
    this.accepts -= 1;
    return this.accepts > 0;
  }
  end(): void {
    this.ended = true;
  }
  text(): string {
    return Buffer.concat(this.writes).toString();
  }
  drain(more: number): void {
    this.accepts = more;
    this.emit('drain');
  }
}

const event = (id: number, result: string): StreamEvent => ({ id: BigInt(id), taskId: 't', murmur: false, result, change: null, state: null });
const open = (res: Response, sliceBytes?: number) =>
  new SseConnection(res as unknown as ServerResponse, 7, { heartbeatMs: 60_000, lagged: () => null, sliceBytes });
const encoded = (id: number, result: string) => encodeSseEvent(BigInt(id), `{"jsonrpc":"2.0","id":7,"result":${result}}`);
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a large event goes out in slices that join to exactly its encoding, small ones share a write', async () => {
  const res = new Response();
  const connection = open(res);
  const large = JSON.stringify({ text: 'x'.repeat(WRITE_SLICE_BYTES * 5 + 17) });
  connection.send(event(1, '{"a":1}'));
  connection.send(event(2, large));
  connection.send(event(3, '{"b":2}'));
  await tick();
  assert.ok(
    res.writes.every((w) => w.length <= WRITE_SLICE_BYTES),
    'no write is over a slice',
  );
  assert.ok(res.writes.length >= 6);
  assert.equal(res.text(), encoded(1, '{"a":1}') + encoded(2, large) + encoded(3, '{"b":2}'));
});

test('a slice never ends inside a UTF-8 character: each write is valid UTF-8 on its own', async () => {
  const res = new Response();
  const connection = open(res, 7);
  const text = JSON.stringify({ t: '😀a😀😀bé€'.repeat(50) });
  connection.writeNow([event(4, text)]);
  await tick();
  for (const w of res.writes) assert.ok(Buffer.from(w.toString()).equals(w), `a write ends inside a character: ${w.toString('hex')}`);
  assert.ok(res.writes.length > 50);
  assert.equal(res.text(), encoded(4, text));
});

test('readers of one event get its one encoding around their own JSON-RPC id, whatever the slice size', async () => {
  const shared = event(9, JSON.stringify({ t: 'shared ü' }));
  for (const sliceBytes of [3, 5, 11, 64, undefined]) {
    const readers = ([7, 'ïd-☃', 'x'] as JsonRpcId[]).map((id) => {
      const res = new Response();
      return { id, res, connection: new SseConnection(res as unknown as ServerResponse, id, { heartbeatMs: 60_000, lagged: () => null, sliceBytes }) };
    });
    for (const { connection } of readers) connection.send(shared);
    await tick();
    for (const { id, res } of readers) {
      assert.equal(res.text(), encodeSseEvent(9n, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${shared.result}}`), `slice ${sliceBytes}`);
    }
  }
  assert.ok(shared.encoded, 'encoded once, kept on the event for the next reader');
});

test('a stalled reader has one slice handed to its socket; the rest waits for drain, and later events are dropped past the queue', async () => {
  const res = new Response(1);
  const connection = open(res);
  const large = JSON.stringify({ text: 'y'.repeat(4 * 1024 * 1024) });
  connection.send(event(1, large));
  await tick();
  assert.equal(res.writes.length, 1, 'one slice, then the socket backed up');
  assert.equal(res.writes[0].length, WRITE_SLICE_BYTES);
  assert.equal(connection.unwrittenBytes, encoded(1, large).length - WRITE_SLICE_BYTES);
  // Blocked: a live event over the queue's bytes is not kept behind the stalled one.
  connection.send(event(2, JSON.stringify({ text: 'z'.repeat(1024 * 1024) })));
  connection.send(event(3, '{"c":3}'));
  await tick();
  assert.equal(res.writes.length, 1, 'nothing more is written until the socket drains');
  connection.end();
  res.drain(Number.POSITIVE_INFINITY);
  await tick();
  const all = res.text();
  assert.ok(all.startsWith(encoded(1, large)));
  assert.doesNotMatch(all, /^id: 2$/m, 'the large event behind the stalled one was dropped');
  assert.match(all, /^id: 3$/m);
  assert.ok(res.ended);
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

test('a connection queue drops its oldest events past its bytes, and lagged counts them (issue 16)', async () => {
  const res = new StalledResponse();
  const connection = new SseConnection(res as unknown as ServerResponse, 1, {
    heartbeatMs: 60_000,
    queueBytes: 100_000,
    lagged: (dropped) => ({ id: null, taskId: null, murmur: true, result: JSON.stringify({ lagged: dropped }), change: null, state: null }),
  });
  connection.writeNow([event(0, JSON.stringify({ x: 'y'.repeat(10) }))]);
  for (let i = 1; i <= 50; i++) connection.send(event(i, JSON.stringify({ x: 'y'.repeat(10_000) })));
  res.emit('drain');
  await tick();
  const ids = [...res.written.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(ids.slice(1), [47, 48, 49, 50], 'only what fits in 100,000 bytes is kept');
  assert.match(res.written, /"lagged":46/);
  res.emit('close');
  assert.ok(connection.isClosed);
});
