import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import test from 'node:test';
import { HEARTBEAT_COMMENT, STREAM_EXTENSION_URI, success, taskNotFound, unsupportedForTask } from '@murmur/protocol';
import { isA2AError, isHttpRefusalError, isStreamError, MurmurClient, type MurmurStreamEvent, type StreamOptions } from '../src/index.js';
import { collect } from './support/collect.js';
import { delay, jsonAnswer, sseEvent, sseHead, startServer, type TestServer } from './support/server.js';
import { artifact, carrier, frameMessage, status, task } from './support/wire.js';

// Streams against a small in-test HTTP server that speaks the door's SSE (docs/streaming.md): reconnect with
// Last-Event-ID, de-duplication of the replay, the heartbeat watchdog, cancellation.

const FAST: StreamOptions = { reconnect: { maxRetries: 3, initialDelayMs: 5, maxDelayMs: 20 }, heartbeatTimeoutMs: 2000 };

const ack = frameMessage({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' });
const closed = frameMessage({ frame: 'capsule-closed' });
const text = (taskId: string, chunk: string) => carrier(taskId, { frame: 'text', text: chunk, final: false });

async function withServer(handler: Parameters<typeof startServer>[0], run: (server: TestServer, client: MurmurClient) => Promise<void>): Promise<void> {
  const server = await startServer(handler);
  try {
    await run(server, new MurmurClient(server.url));
  } finally {
    await server.close();
  }
}

test('WatchSession: a dropped socket reconnects with Last-Event-ID = the last id seen, and the replay’s repeats are removed', async () => {
  await withServer(
    async (req, res, index) => {
      const id = req.rpc!.id;
      sseHead(res);
      if (index === 0) {
        res.write(sseEvent(id, ack));
        res.write(sseEvent(id, status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), 0));
        res.write(sseEvent(id, text('tsk_a', 'fo'), 1));
        res.write(sseEvent(id, text('tsk_a', 'ur'), 2));
        await delay(20);
        // Half an event, then the socket dies.
        res.write('id: 3\ndata: {"jsonrpc":"2.0","id":');
        await delay(20);
        res.socket?.destroy();
        return;
      }
      res.write(sseEvent(id, ack));
      // The replay of ids above 2 as the door's buffer holds them: tsk_a's 1 and 2 came from a replay judged on
      // another task's ids, so they repeat; tsk_b's 2 has the same id as tsk_a's but is a different event.
      res.write(sseEvent(id, text('tsk_a', 'fo'), 1));
      res.write(sseEvent(id, text('tsk_a', 'ur'), 2));
      res.write(sseEvent(id, text('tsk_b', 'ur'), 2));
      res.write(sseEvent(id, artifact('tsk_a', 'four'), 3));
      res.write(sseEvent(id, status('tsk_a', 'TASK_STATE_COMPLETED'), 4));
      res.write(sseEvent(id, closed));
      res.end();
    },
    async (server, client) => {
      const { lines, error } = await collect(client.watchSession(FAST));
      assert.equal(error, null);
      assert.deepEqual(lines, [
        'conn:open',
        'frame:connection-ack - -',
        'status tsk_a 0',
        'frame:text tsk_a 1',
        'frame:text tsk_a 2',
        'conn:reconnecting:network-error',
        'conn:open',
        'frame:connection-ack - -',
        'frame:text tsk_b 2',
        'artifact tsk_a 3',
        'status tsk_a 4',
        'frame:capsule-closed - -',
        'conn:closed:natural-end',
      ]);
      assert.equal(server.requests.length, 2);
      assert.equal(server.requests[0]!.headers['last-event-id'], undefined);
      assert.equal(server.requests[1]!.headers['last-event-id'], '2');
      for (const r of server.requests) {
        assert.equal(r.rpc!.method, 'murmur.WatchSession');
        assert.equal(r.headers['a2a-version'], '1.0');
        assert.equal(r.headers['content-type'], 'application/json');
        assert.equal(r.headers.accept, 'text/event-stream');
      }
      assert.notEqual(server.requests[0]!.rpc!.id, server.requests[1]!.rpc!.id);
    },
  );
});

test('WatchSession: a body that ends without capsule-closed is a lost connection, not the end', async () => {
  await withServer(
    (req, res, index) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      if (index === 0) res.write(sseEvent(req.rpc!.id, status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), 0));
      else res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (server, client) => {
      const { events, lines } = await collect(client.watchSession(FAST));
      assert.deepEqual(lines, [
        'conn:open',
        'frame:connection-ack - -',
        'status tsk_a 0',
        'conn:reconnecting:ended-early',
        'conn:open',
        'frame:connection-ack - -',
        'frame:capsule-closed - -',
        'conn:closed:natural-end',
      ]);
      const reconnecting = events[3];
      assert.ok(reconnecting!.kind === 'connection' && reconnecting!.attempt === 1 && reconnecting!.lastEventId === '0');
      assert.ok(reconnecting!.kind === 'connection' && typeof reconnecting!.delayMs === 'number' && reconnecting!.delayMs <= 5);
      assert.equal(server.requests[1]!.headers['last-event-id'], '0');
    },
  );
});

test('SendStreamingMessage: a drop resumes with SubscribeToTask on its task, never by sending the message again', async () => {
  await withServer(
    async (req, res, index) => {
      const id = req.rpc!.id;
      sseHead(res, { 'A2A-Extensions': STREAM_EXTENSION_URI });
      if (index === 0) {
        res.write(sseEvent(id, { task: task('tsk_s', 'TASK_STATE_SUBMITTED') }));
        res.write(sseEvent(id, status('tsk_s', 'TASK_STATE_WORKING', 'inference turn 1'), 0));
        await delay(10);
        res.socket?.destroy();
        return;
      }
      res.write(sseEvent(id, { task: task('tsk_s', 'TASK_STATE_WORKING') }));
      res.write(sseEvent(id, status('tsk_s', 'TASK_STATE_WORKING', 'inference turn 1'), 0));
      res.write(sseEvent(id, text('tsk_s', 'four'), 1));
      res.write(sseEvent(id, artifact('tsk_s', 'four'), 2));
      res.write(sseEvent(id, status('tsk_s', 'TASK_STATE_COMPLETED'), 3));
      res.end();
    },
    async (server, client) => {
      const request = { message: { messageId: 'msg-1', role: 'ROLE_USER' as const, parts: [{ text: 'What is 2+2?' }] } };
      const { lines, error } = await collect(client.sendStreamingMessage(request, { ...FAST, murmurFrames: true }));
      assert.equal(error, null);
      assert.deepEqual(lines, [
        'conn:open',
        'task tsk_s -',
        'status tsk_s 0',
        'conn:reconnecting:network-error',
        'conn:open',
        'task tsk_s -',
        'frame:text tsk_s 1',
        'artifact tsk_s 2',
        'status tsk_s 3',
        'conn:closed:natural-end',
      ]);
      assert.deepEqual(
        server.requests.map((r) => r.rpc!.method),
        ['SendStreamingMessage', 'SubscribeToTask'],
      );
      assert.deepEqual(server.requests[1]!.rpc!.params, { id: 'tsk_s' });
      assert.equal(server.requests[1]!.headers['last-event-id'], '0');
      for (const r of server.requests) assert.equal(r.headers['a2a-extensions'], STREAM_EXTENSION_URI);
    },
  );
});

test('SendStreamingMessage that drops before its task event cannot resume, and says how to find the task', async () => {
  await withServer(
    (_req, res) => {
      sseHead(res);
      res.end();
    },
    async (server, client) => {
      const { lines, error } = await collect(client.sendStreamingMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, FAST));
      assert.deepEqual(lines, ['conn:open', 'conn:lost:ended-early']);
      assert.ok(isStreamError(error));
      assert.equal(error.reason, 'cannot-resume');
      assert.match(error.message, /listTasks\(\{ contextId \}\)/);
      assert.equal(server.requests.length, 1);
    },
  );
});

test('SendStreamingMessage ends when its task asks for input; SubscribeToTask stays open through it', async () => {
  const handler = async (req: { rpc: { id: number | string } | null }, res: import('node:http').ServerResponse) => {
    const id = req.rpc!.id;
    sseHead(res);
    res.write(sseEvent(id, { task: task('tsk_i', 'TASK_STATE_WORKING') }));
    res.write(sseEvent(id, status('tsk_i', 'TASK_STATE_INPUT_REQUIRED', 'Which branch?'), '9223372036854775807'));
    res.write(sseEvent(id, status('tsk_i', 'TASK_STATE_WORKING', 'resumed'), '9223372036854775808'));
    res.write(sseEvent(id, status('tsk_i', 'TASK_STATE_INPUT_REQUIRED', 'Which file?'), '9223372036854775807'));
    res.write(sseEvent(id, status('tsk_i', 'TASK_STATE_WORKING', 'resumed'), '9223372036854775808'));
    res.write(sseEvent(id, status('tsk_i', 'TASK_STATE_CANCELED'), '5'));
    res.end();
  };
  await withServer(handler, async (_server, client) => {
    const send = await collect(client.sendStreamingMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, FAST));
    assert.deepEqual(send.lines, ['conn:open', 'task tsk_i -', 'status tsk_i 9223372036854775807', 'conn:closed:natural-end']);
    // Two input waits reuse the same ids on one connection: both are delivered (ids are labels).
    const sub = await collect(client.subscribeToTask('tsk_i', FAST));
    assert.deepEqual(sub.lines, [
      'conn:open',
      'task tsk_i -',
      'status tsk_i 9223372036854775807',
      'status tsk_i 9223372036854775808',
      'status tsk_i 9223372036854775807',
      'status tsk_i 9223372036854775808',
      'status tsk_i 5',
      'conn:closed:natural-end',
    ]);
  });
});

test('SubscribeToTask: a task that ended while the client was away is read with GetTask and ends the stream', async () => {
  await withServer(
    (req, res, index) => {
      const id = req.rpc!.id;
      if (index === 0) {
        sseHead(res);
        res.write(sseEvent(id, { task: task('tsk_e', 'TASK_STATE_WORKING') }));
        res.write(sseEvent(id, status('tsk_e', 'TASK_STATE_WORKING', 'inference turn 1'), 0));
        res.end();
      } else if (req.rpc!.method === 'SubscribeToTask') {
        jsonAnswer(res, 200, { jsonrpc: '2.0', id, error: unsupportedForTask('Task tsk_e has ended', 'tsk_e', 'TASK_STATE_COMPLETED') });
      } else {
        jsonAnswer(res, 200, success(id, task('tsk_e', 'TASK_STATE_COMPLETED')));
      }
    },
    async (server, client) => {
      const { lines, events, error } = await collect(client.subscribeToTask('tsk_e', FAST));
      assert.equal(error, null);
      assert.deepEqual(lines, ['conn:open', 'task tsk_e -', 'status tsk_e 0', 'conn:reconnecting:ended-early', 'task tsk_e -', 'conn:closed:natural-end']);
      const last = events[4];
      assert.ok(last!.kind === 'task' && last!.response.task.status.state === 'TASK_STATE_COMPLETED');
      assert.deepEqual(
        server.requests.map((r) => r.rpc!.method),
        ['SubscribeToTask', 'SubscribeToTask', 'GetTask'],
      );
    },
  );
});

test('a refusal of the opening request throws its typed error before anything is yielded', async () => {
  await withServer(
    (req, res) => jsonAnswer(res, 200, { jsonrpc: '2.0', id: req.rpc!.id, error: taskNotFound('tsk_nope') }),
    async (_server, client) => {
      const { lines, error } = await collect(client.subscribeToTask('tsk_nope', FAST));
      assert.deepEqual(lines, []);
      assert.ok(isA2AError(error, 'TaskNotFound'));
      assert.equal(error.metadata.taskId, 'tsk_nope');
    },
  );
});

test('a reconnect the door refuses (401) ends the stream with reconnect-refused, its cause attached', async () => {
  await withServer(
    (req, res, index) => {
      if (index > 0) {
        jsonAnswer(res, 401, { error: 'invalid_token', message: 'the token is not valid' }, { 'www-authenticate': 'Bearer realm="a", error="invalid_token"' });
        return;
      }
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      res.end();
    },
    async (_server, client) => {
      const { lines, error } = await collect(client.watchSession(FAST));
      assert.deepEqual(lines, ['conn:open', 'frame:connection-ack - -', 'conn:reconnecting:ended-early', 'conn:lost:network-error']);
      assert.ok(isStreamError(error));
      assert.equal(error.reason, 'reconnect-refused');
      assert.ok(isHttpRefusalError(error.cause));
      assert.equal(error.cause.wwwAuthenticate, 'Bearer realm="a", error="invalid_token"');
    },
  );
});

test('reconnect gives up after maxRetries consecutive failures', async () => {
  await withServer(
    (req, res, index) => {
      if (index > 0) {
        res.socket?.destroy();
        return;
      }
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      res.end();
    },
    async (server, client) => {
      const { lines, error } = await collect(client.watchSession({ ...FAST, reconnect: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } }));
      assert.deepEqual(lines, [
        'conn:open',
        'frame:connection-ack - -',
        'conn:reconnecting:ended-early',
        'conn:reconnecting:network-error',
        'conn:lost:network-error',
      ]);
      assert.ok(isStreamError(error));
      assert.equal(error.reason, 'retries-exhausted');
      assert.equal(server.requests.length, 3);
    },
  );
});

test('with reconnect off, a drop throws connection-lost carrying the last id to resume from', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), 7));
      res.end();
    },
    async (_server, client) => {
      const { lines, error } = await collect(client.watchSession({ reconnect: false }));
      assert.deepEqual(lines, ['conn:open', 'status tsk_a 7', 'conn:lost:ended-early']);
      assert.ok(isStreamError(error));
      assert.equal(error.reason, 'connection-lost');
      assert.equal(error.lastEventId, '7');
    },
  );
});

test('the lastEventId option resumes a new stream where an old one stopped', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (server, client) => {
      await collect(client.watchSession({ lastEventId: '41' }));
      assert.equal(server.requests[0]!.headers['last-event-id'], '41');
    },
  );
});

test('the watchdog: a stalled server is dropped after heartbeatTimeoutMs (StreamError when reconnect is off)', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      // … and then nothing, not even a heartbeat.
    },
    async (server, client) => {
      const started = Date.now();
      const { lines, error } = await collect(client.watchSession({ reconnect: false, heartbeatTimeoutMs: 150 }));
      assert.ok(Date.now() - started >= 140);
      assert.deepEqual(lines, ['conn:open', 'frame:connection-ack - -', 'conn:lost:heartbeat-timeout']);
      assert.ok(isStreamError(error));
      assert.equal(error.reason, 'heartbeat-timeout');
      await server.requests[0]!.closed;
    },
  );
});

test('the watchdog covers the wait for the answer: a server that never sends headers fails the stream instead of hanging', async () => {
  await withServer(
    () => {
      // Takes the request and answers nothing at all.
    },
    async (server, client) => {
      const started = Date.now();
      const { error } = await collect(client.watchSession({ reconnect: false, heartbeatTimeoutMs: 150 }));
      assert.ok(Date.now() - started >= 140);
      assert.ok(error instanceof Error && /no answer within 150 ms/.test(error.message), String(error));
      await server.requests[0]!.closed;
    },
  );
});

test('the watchdog: with reconnect on, a stall reports reconnecting with reason heartbeat-timeout and reconnects', async () => {
  await withServer(
    (req, res, index) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      if (index > 0) {
        res.write(sseEvent(req.rpc!.id, closed));
        res.end();
      }
    },
    async (server, client) => {
      const { lines } = await collect(client.watchSession({ ...FAST, heartbeatTimeoutMs: 100 }));
      assert.deepEqual(lines, [
        'conn:open',
        'frame:connection-ack - -',
        'conn:reconnecting:heartbeat-timeout',
        'conn:open',
        'frame:connection-ack - -',
        'frame:capsule-closed - -',
        'conn:closed:natural-end',
      ]);
      await server.requests[0]!.closed;
    },
  );
});

test('the watchdog: heartbeat comments keep a quiet stream alive', async () => {
  await withServer(
    async (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      for (let i = 0; i < 8; i++) {
        await delay(40);
        res.write(HEARTBEAT_COMMENT);
      }
      res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (_server, client) => {
      const { lines } = await collect(client.watchSession({ reconnect: false, heartbeatTimeoutMs: 150 }));
      assert.deepEqual(lines, ['conn:open', 'frame:connection-ack - -', 'frame:capsule-closed - -', 'conn:closed:natural-end']);
    },
  );
});

test('the watchdog does not count the time the consumer spends between events', async (t) => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (_server, client) => {
      // The watchdog's timers run on a mocked clock that moves only when the test ticks it: 120 ms, more than the
      // 50 ms watchdog, while the consumer holds each event. A watchdog that counted that time fires at the tick; one
      // that does not never fires, however long a loaded machine takes to deliver the bytes (real time is not counted).
      t.mock.timers.enable({ apis: ['setTimeout'] });
      const lines: string[] = [];
      for await (const event of client.watchSession({ reconnect: false, heartbeatTimeoutMs: 50 })) {
        lines.push(event.kind);
        t.mock.timers.tick(120);
      }
      assert.deepEqual(lines, ['connection', 'frame', 'frame', 'connection']);
    },
  );
});

test('the same mocked clock does fire the watchdog while the client waits for bytes', async (t) => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      // … and then nothing: the client waits for bytes, its watchdog armed.
    },
    async (server, client) => {
      t.mock.timers.enable({ apis: ['setTimeout'] });
      const lines: string[] = [];
      const events = client.watchSession({ reconnect: false, heartbeatTimeoutMs: 50 });
      const collected = (async () => {
        for await (const event of events) lines.push(event.kind === 'connection' ? `conn:${event.state}` : event.kind);
      })();
      while (!lines.includes('frame')) await new Promise((resolve) => setImmediate(resolve));
      // The generator is parked in the watchdog's wait; the tick passes its 50 ms.
      await new Promise((resolve) => setImmediate(resolve));
      t.mock.timers.tick(60);
      await assert.rejects(collected, (error: unknown) => isStreamError(error) && error.reason === 'heartbeat-timeout');
      assert.deepEqual(lines, ['conn:open', 'frame', 'conn:lost']);
      await server.requests[0]!.closed;
    },
  );
});

test('gap and lagged frames are surfaced as events, never hidden', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
      res.write(sseEvent(req.rpc!.id, frameMessage({ frame: 'gap', firstAvailableId: '37' })));
      res.write(sseEvent(req.rpc!.id, frameMessage({ frame: 'lagged', dropped: 12 })));
      res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (_server, client) => {
      const { events } = await collect(client.watchSession({ lastEventId: '3' }));
      const frames = events.flatMap((e) => (e.kind === 'frame' ? [e.frame] : []));
      assert.deepEqual(frames, [
        { frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' },
        { frame: 'gap', firstAvailableId: '37' },
        { frame: 'lagged', dropped: 12 },
        { frame: 'capsule-closed' },
      ]);
    },
  );
});

test('murmurFrames sends A2A-Extensions on SubscribeToTask; without it, and on WatchSession, none is sent', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      if (req.rpc!.method === 'murmur.WatchSession') res.write(sseEvent(req.rpc!.id, closed));
      else res.write(sseEvent(req.rpc!.id, { task: task('tsk_f', 'TASK_STATE_FAILED') }));
      res.end();
    },
    async (server, client) => {
      await collect(client.subscribeToTask('tsk_f', { murmurFrames: true }));
      await collect(client.subscribeToTask('tsk_f'));
      await collect(client.watchSession());
      assert.deepEqual(
        server.requests.map((r) => r.headers['a2a-extensions']),
        [STREAM_EXTENSION_URI, undefined, undefined],
      );
    },
  );
});

test('break aborts the request: the server sees the connection close', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
    },
    async (server, client) => {
      for await (const event of client.watchSession(FAST)) {
        if (event.kind === 'frame') break;
      }
      await server.requests[0]!.closed;
    },
  );
});

test('an AbortSignal ends the stream: next() rejects with its reason and the connection closes', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, ack));
    },
    async (server, client) => {
      const controller = new AbortController();
      const seen: MurmurStreamEvent[] = [];
      await assert.rejects(
        (async () => {
          for await (const event of client.watchSession({ ...FAST, signal: controller.signal })) {
            seen.push(event);
            if (event.kind === 'frame') setTimeout(() => controller.abort(new Error('component unmounted')), 20);
          }
        })(),
        /component unmounted/,
      );
      assert.equal(seen.length, 2);
      await server.requests[0]!.closed;
    },
  );
});

test('a stream is single-use: iterating it twice throws with a hint', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (_server, client) => {
      const stream = client.watchSession();
      await collect(stream);
      assert.throws(
        () => stream[Symbol.asyncIterator](),
        (error: unknown) => {
          assert.ok(isStreamError(error));
          assert.equal(error.reason, 'already-iterated');
          assert.match(error.message, /single-use: call client\.watchSession\(\) again/);
          return true;
        },
      );
    },
  );
});

test('an event for another request id is an invalid-event StreamError', async () => {
  await withServer(
    (_req, res) => {
      sseHead(res);
      res.write(sseEvent(999, ack));
      res.end();
    },
    async (_server, client) => {
      const { lines, error } = await collect(client.watchSession(FAST));
      assert.deepEqual(lines, ['conn:open']);
      assert.ok(isStreamError(error));
      assert.equal(error.reason, 'invalid-event');
    },
  );
});

test('a signal shared by many streams keeps no listeners once they end; an aborted one sends nothing', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, closed));
      res.end();
    },
    async (server, client) => {
      const controller = new AbortController();
      for (let i = 0; i < 12; i++) await collect(client.watchSession({ signal: controller.signal }));
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      assert.equal(server.requests.length, 12);
      controller.abort(new Error('gone'));
      const { lines, error } = await collect(client.watchSession({ signal: controller.signal }));
      assert.deepEqual(lines, []);
      assert.match(String(error), /gone/);
      assert.equal(server.requests.length, 12);
    },
  );
});
