import assert from 'node:assert/strict';
import test from 'node:test';
import { encodeSseEvent, HEARTBEAT_COMMENT } from '@murmur/protocol';
import { selectSseTransport } from '../src/internal/sse.js';
import { EventTooLargeError, isEventStream, type SseItem } from '../src/internal/sse-types.js';
import { openWithFetch, readSseItems } from '../src/internal/sse-fetch.js';

// The seam's fetch transport: eventsource-parser over a fetch body. Tests feed tiny chunks (STYLE 15, after
// a2a-js's test/sse_utils.spec.ts, which splits into 2-byte chunks).

const encoder = new TextEncoder();

/** A body that delivers `bytes` in slices of `size` bytes. */
function chunkedBody(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>, maxEventSize?: number): Promise<SseItem[]> {
  const items: SseItem[] = [];
  for await (const item of readSseItems(body, maxEventSize)) items.push(item);
  return items;
}

const withoutBytes = (items: SseItem[]) => items.filter((item) => item.type !== 'bytes');

const DOOR_STREAM =
  encodeSseEvent(null, '{"jsonrpc":"2.0","id":7,"result":{"task":{"id":"tsk_1"}}}') +
  HEARTBEAT_COMMENT +
  encodeSseEvent(2n, '{"jsonrpc":"2.0","id":7,"result":{"statusUpdate":{"taskId":"tsk_1","text":"fünf — ✓ 🐢"}}}') +
  encodeSseEvent(18446744073709551615n, '{"jsonrpc":"2.0","id":7,"result":{}}');

const EXPECTED: SseItem[] = [
  { type: 'event', id: null, data: '{"jsonrpc":"2.0","id":7,"result":{"task":{"id":"tsk_1"}}}' },
  { type: 'comment', text: 'heartbeat' },
  { type: 'event', id: '2', data: '{"jsonrpc":"2.0","id":7,"result":{"statusUpdate":{"taskId":"tsk_1","text":"fünf — ✓ 🐢"}}}' },
  { type: 'event', id: '18446744073709551615', data: '{"jsonrpc":"2.0","id":7,"result":{}}' },
];

for (const size of [1, 2, 3, 7, 64, 100_000]) {
  test(`the door's events parse the same in ${size}-byte chunks (multi-byte UTF-8 split across chunks included)`, async () => {
    assert.deepEqual(withoutBytes(await collect(chunkedBody(DOOR_STREAM, size))), EXPECTED);
  });
}

test('2-byte chunks report bytes that complete nothing, which is what feeds the watchdog', async () => {
  const items = await collect(chunkedBody(HEARTBEAT_COMMENT, 2));
  assert.ok(items.filter((i) => i.type === 'bytes').length >= 4);
  assert.deepEqual(withoutBytes(items), [{ type: 'comment', text: 'heartbeat' }]);
});

test('CRLF and CR line endings are read like LF, in 2-byte chunks too', async () => {
  for (const eol of ['\r\n', '\r']) {
    const text = DOOR_STREAM.replaceAll('\n', eol);
    for (const size of [2, 5, 4096])
      assert.deepEqual(withoutBytes(await collect(chunkedBody(text, size))), EXPECTED, `eol ${JSON.stringify(eol)}, size ${size}`);
  }
});

test('a heartbeat alone between events is a comment, never an event', async () => {
  const items = withoutBytes(await collect(chunkedBody(`${HEARTBEAT_COMMENT}${HEARTBEAT_COMMENT}data: x\n\n${HEARTBEAT_COMMENT}`, 2)));
  assert.deepEqual(items, [
    { type: 'comment', text: 'heartbeat' },
    { type: 'comment', text: 'heartbeat' },
    { type: 'event', id: null, data: 'x' },
    { type: 'comment', text: 'heartbeat' },
  ]);
});

test('an id belongs to its own event only: the next event without an id line has id null', async () => {
  const items = withoutBytes(await collect(chunkedBody('id: 5\ndata: a\n\ndata: b\n\n', 2)));
  assert.deepEqual(items, [
    { type: 'event', id: '5', data: 'a' },
    { type: 'event', id: null, data: 'b' },
  ]);
});

test('event: lines, unknown fields and retry: are ignored; a leading BOM is stripped', async () => {
  const items = withoutBytes(await collect(chunkedBody('\uFEFFevent: status\nfoo: bar\nretry: 10\ndata: a\n\n', 2)));
  assert.deepEqual(items, [{ type: 'event', id: null, data: 'a' }]);
});

test('an unfinished event at the end of the body is dropped (HTML §9.2.6)', async () => {
  const items = withoutBytes(await collect(chunkedBody('data: whole\n\ndata: half', 3)));
  assert.deepEqual(items, [{ type: 'event', id: null, data: 'whole' }]);
});

test('an event larger than maxEventSize fails the stream rather than growing without bound', async () => {
  const big = `data: ${'x'.repeat(5000)}\n\n`;
  await assert.rejects(collect(chunkedBody(big, 100), 1000), EventTooLargeError);
  assert.equal(withoutBytes(await collect(chunkedBody(big, 100), 10_000)).length, 1);
});

test('stopping early cancels the body', async () => {
  let canceled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('data: 1\n\ndata: 2\n\n'));
    },
    cancel() {
      canceled = true;
    },
  });
  for await (const item of readSseItems(body)) {
    assert.deepEqual(item, { type: 'event', id: null, data: '1' });
    break;
  }
  assert.equal(canceled, true);
});

test('isEventStream wants a 200 text/event-stream, parameters and case aside', () => {
  const answer = (status: number, type: string | null) => new Response(status === 204 ? null : '', { status, headers: type ? { 'content-type': type } : {} });
  assert.equal(isEventStream(answer(200, 'text/event-stream')), true);
  assert.equal(isEventStream(answer(200, 'Text/Event-Stream; charset=utf-8')), true);
  assert.equal(isEventStream(answer(200, 'application/json')), false);
  assert.equal(isEventStream(answer(401, 'text/event-stream')), false);
  assert.equal(isEventStream(answer(200, null)), false);
});

test('openWithFetch hands back a JSON answer unread as events', async () => {
  const body = '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}';
  const fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const open = await openWithFetch({ url: 'http://door/', headers: {}, body: '{}', signal: new AbortController().signal, fetch, maxEventSize: 1000 });
  assert.equal(open.type, 'answer');
  assert.equal(open.type === 'answer' && open.text, body);
});

test('selectSseTransport never picks fetch-event-source in Node', () => {
  assert.equal(typeof (globalThis as { document?: unknown }).document, 'undefined');
  assert.equal(selectSseTransport(), 'fetch');
  assert.equal(selectSseTransport('auto'), 'fetch');
  assert.equal(selectSseTransport('fetch'), 'fetch');
  assert.throws(() => selectSseTransport('fetch-event-source'), /needs a DOM/);
  const browser = { document: {}, window: {} };
  assert.equal(selectSseTransport('auto', browser), 'fetch-event-source');
  assert.equal(selectSseTransport('fetch', browser), 'fetch');
});
