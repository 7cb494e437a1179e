import assert from 'node:assert/strict';
import test from 'node:test';
import { isStreamError, MurmurClient, type MurmurStreamEvent } from '../src/index.js';
import { ItemQueue } from '../src/internal/item-queue.js';
import { wrapperCallbacks } from '../src/internal/sse-fetch-event-source.js';
import { EventTooLargeError, type SseItem } from '../src/internal/sse-types.js';
import { describeEvent } from './support/collect.js';
import { delay, sseEvent, sseHead, startServer } from './support/server.js';
import { status, task } from './support/wire.js';

// maxEventSize holds per event, whether the event arrives in one read or across many (issue 15): the stream fails
// once with StreamError('event-too-large'), after the complete events before it, and does not reconnect.

async function streamOnce(write: (id: number | string, res: import('node:http').ServerResponse) => Promise<void>) {
  const door = await startServer(async (req, res) => {
    sseHead(res);
    await write(req.rpc!.id, res);
  });
  try {
    const client = new MurmurClient(door.url, { maxEventSize: 1000, reconnect: { maxRetries: 3, initialDelayMs: 5, maxDelayMs: 10 } });
    const events: MurmurStreamEvent[] = [];
    let error: unknown = null;
    try {
      for await (const event of client.subscribeToTask('tsk_big')) events.push(event);
    } catch (caught) {
      error = caught;
    }
    return { lines: events.map(describeEvent), error, requests: door.requests.length };
  } finally {
    await door.close();
  }
}

const big = (taskId: string) => status(taskId, 'TASK_STATE_WORKING', 'x'.repeat(5000));

test('one read holding earlier events and a 5,000-character event: the earlier ones arrive, then one typed failure', async () => {
  const { lines, error, requests } = await streamOnce(async (id, res) => {
    // One write, so one read: two small events, the big one, and one more that must not be delivered.
    res.write(
      sseEvent(id, { task: task('tsk_big', 'TASK_STATE_SUBMITTED') }) +
        sseEvent(id, status('tsk_big', 'TASK_STATE_WORKING'), 0) +
        sseEvent(id, big('tsk_big'), 1) +
        sseEvent(id, status('tsk_big', 'TASK_STATE_WORKING'), 2),
    );
    await delay(2000);
  });
  assert.deepEqual(lines, ['conn:open', 'task tsk_big -', 'status tsk_big 0', 'conn:lost:event-too-large']);
  assert.ok(isStreamError(error));
  assert.equal(error.reason, 'event-too-large');
  assert.equal(error.retryable, false);
  assert.match(error.message, /larger than the 1000 allowed/);
  assert.ok(error.cause instanceof EventTooLargeError);
  assert.equal(requests, 1, 'no reconnect to fetch the same event again');
});

test('an event that grows past the limit across reads fails the same way, after the events before it', async () => {
  const { lines, error, requests } = await streamOnce(async (id, res) => {
    res.write(sseEvent(id, { task: task('tsk_big', 'TASK_STATE_WORKING') }));
    const text = sseEvent(id, big('tsk_big'), 0);
    for (let i = 0; i < text.length; i += 200) {
      res.write(text.slice(i, i + 200));
      await delay(2);
    }
    await delay(2000);
  });
  assert.deepEqual(lines, ['conn:open', 'task tsk_big -', 'conn:lost:event-too-large']);
  assert.ok(isStreamError(error));
  assert.equal(error.reason, 'event-too-large');
  assert.equal(requests, 1);
});

test('the browser transport (fetch-event-source) enforces the limit per event too', async () => {
  const stop = new AbortController();
  const queue = new ItemQueue<SseItem>(100, () => {});
  const callbacks = wrapperCallbacks({ queue, stop, opened: () => {}, maxEventSize: 10 });
  callbacks.onmessage({ id: '1', event: '', data: 'small', retry: undefined });
  callbacks.onmessage({ id: '2', event: '', data: 'x'.repeat(11), retry: undefined });
  callbacks.onmessage({ id: '3', event: '', data: 'after', retry: undefined });
  assert.ok(stop.signal.reason instanceof EventTooLargeError);
  queue.fail(stop.signal.reason);
  assert.deepEqual(await queue.next(), { done: false, value: { type: 'event', id: '1', data: 'small' } });
  await assert.rejects(queue.next(), EventTooLargeError);
});
