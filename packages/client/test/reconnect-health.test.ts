import assert from 'node:assert/strict';
import test from 'node:test';
import { HEARTBEAT_COMMENT } from '@murmur/protocol';
import { type ConnectionEvent, isStreamError, MurmurClient, type MurmurStreamEvent } from '../src/index.js';
import { startCuttingProxy } from './support/cutting-proxy.js';
import { delay, sseEvent, sseHead, startServer } from './support/server.js';
import { frameMessage, status, task } from './support/wire.js';

// Back-off through a proxy that cuts every connection 100 ms in (issue 15): a connection counts as healthy only once
// it delivers something new, or stays up healthyAfterMs; otherwise failures add up, delays double, and the stream
// ends with retries-exhausted.

const ack = frameMessage({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' });

async function run(stream: AsyncIterable<MurmurStreamEvent>): Promise<{ events: MurmurStreamEvent[]; error: unknown }> {
  const events: MurmurStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}
const reconnects = (events: MurmurStreamEvent[]) => events.filter((e): e is ConnectionEvent => e.kind === 'connection' && e.state === 'reconnecting');

test('connections that only say connection-ack are failures: delays double and the stream ends retries-exhausted', async () => {
  // Like a quiet door: every WatchSession connection opens with connection-ack, then only heartbeats.
  const door = await startServer(async (req, res) => {
    sseHead(res);
    res.write(sseEvent(req.rpc!.id, ack));
    for (let i = 0; i < 50 && !res.destroyed; i++) {
      await delay(20);
      res.write(`${HEARTBEAT_COMMENT}\n\n`);
    }
  });
  const proxy = await startCuttingProxy(door.url, 100);
  try {
    const client = new MurmurClient(proxy.url, { reconnect: { maxRetries: 3, initialDelayMs: 100, maxDelayMs: 10_000 } });
    const { events, error } = await run(client.watchSession());
    assert.ok(isStreamError(error), String(error));
    assert.equal(error.reason, 'retries-exhausted');
    const retries = reconnects(events);
    assert.deepEqual(
      retries.map((e) => e.attempt),
      [1, 2, 3],
    );
    const delays = retries.map((e) => e.delayMs ?? 0);
    // 100, 200, 400 ms less up to 25 % jitter.
    assert.ok(delays[0]! >= 75 && delays[0]! <= 100, `${delays}`);
    assert.ok(delays[1]! >= 150 && delays[1]! <= 200, `${delays}`);
    assert.ok(delays[2]! >= 300 && delays[2]! <= 400, `${delays}`);
    assert.equal(proxy.accepted, 4);
  } finally {
    await proxy.close();
    await door.close();
  }
});

test('a connection that delivers something new is healthy: the failure count starts again', async () => {
  // Every connection (after the ack) delivers a status update not seen before, then the proxy cuts it.
  let n = 0;
  const door = await startServer(async (req, res) => {
    sseHead(res);
    res.write(sseEvent(req.rpc!.id, ack));
    n += 1;
    res.write(sseEvent(req.rpc!.id, status(`tsk_${n}`, 'TASK_STATE_WORKING', `turn ${n}`), 0));
    await delay(1000);
  });
  const proxy = await startCuttingProxy(door.url, 100);
  try {
    const client = new MurmurClient(proxy.url, { reconnect: { maxRetries: 2, initialDelayMs: 20, maxDelayMs: 1000 } });
    const controller = new AbortController();
    const events: MurmurStreamEvent[] = [];
    try {
      for await (const event of client.watchSession({ signal: controller.signal })) {
        events.push(event);
        if (reconnects(events).length === 5) controller.abort(new Error('enough'));
      }
    } catch (error) {
      assert.equal((error as Error).message, 'enough');
    }
    // Five reconnects with maxRetries 2, each the first retry: progress on every connection reset the count.
    assert.deepEqual(
      reconnects(events).map((e) => e.attempt),
      [1, 1, 1, 1, 1],
    );
  } finally {
    await proxy.close();
    await door.close();
  }
});

test('a connection that stayed up healthyAfterMs is healthy even with nothing new to say', async () => {
  const door = await startServer(async (req, res) => {
    sseHead(res);
    res.write(sseEvent(req.rpc!.id, ack));
    await delay(1000);
  });
  const proxy = await startCuttingProxy(door.url, 150);
  try {
    const client = new MurmurClient(proxy.url, { reconnect: { maxRetries: 1, initialDelayMs: 10, maxDelayMs: 100, healthyAfterMs: 100 } });
    const controller = new AbortController();
    const events: MurmurStreamEvent[] = [];
    try {
      for await (const event of client.watchSession({ signal: controller.signal })) {
        events.push(event);
        if (reconnects(events).length === 3) controller.abort(new Error('enough'));
      }
    } catch (error) {
      assert.equal((error as Error).message, 'enough');
    }
    assert.deepEqual(
      reconnects(events).map((e) => e.attempt),
      [1, 1, 1],
    );
  } finally {
    await proxy.close();
    await door.close();
  }
});

test('a resumed task snapshot is marked, and is not progress: a task stream cut after its snapshot exhausts its retries', async () => {
  const door = await startServer(async (req, res) => {
    sseHead(res);
    res.write(sseEvent(req.rpc!.id, { task: task('tsk_r', 'TASK_STATE_WORKING') }));
    await delay(1000);
  });
  const proxy = await startCuttingProxy(door.url, 100);
  try {
    const client = new MurmurClient(proxy.url, { reconnect: { maxRetries: 2, initialDelayMs: 10, maxDelayMs: 100 } });
    const request = { message: { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };
    const { events, error } = await run(client.sendStreamingMessage(request));
    assert.ok(isStreamError(error));
    assert.equal(error.reason, 'retries-exhausted');
    const snapshots = events.flatMap((e) => (e.kind === 'task' ? [e.resumed] : []));
    assert.deepEqual(snapshots, [false, true, true], 'one first task event, then one marked snapshot per resume');
  } finally {
    await proxy.close();
    await door.close();
  }
});
