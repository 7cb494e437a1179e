import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import test from 'node:test';
import { fetchEventSource } from '@microsoft/fetch-event-source';
import { HEARTBEAT_COMMENT } from '@murmur/protocol';
import { MurmurClient } from '../src/index.js';
import { ItemQueue } from '../src/internal/item-queue.js';
import type { SseItem, SseOpen } from '../src/internal/sse-types.js';
import { selectSseTransport } from '../src/internal/sse.js';
import { ConsumerBehindError, MAX_QUEUED_ITEMS, openWithFetchEventSource, wrapperCallbacks } from '../src/internal/sse-fetch-event-source.js';
import { collect } from './support/collect.js';
import { delay, sseEvent, sseHead, startServer, type TestServer, waitFor } from './support/server.js';
import { frameMessage, status } from './support/wire.js';

// @microsoft/fetch-event-source 2.0.1 and the wrapper that tames it (DESIGN, "The client SDK"; STYLE 6 and
// "What to avoid" 5). Each misbehaviour is shown on the bare library (the control) and then shown gone through
// the wrapper. The library needs `document` and `window`, so these tests install a minimal fake DOM.

interface FakeDocument {
  hidden: boolean;
  listeners: Map<string, Set<() => void>>;
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
  dispatch(type: string): void;
}

function installDom(): { document: FakeDocument; uninstall: () => void } {
  const listeners = new Map<string, Set<() => void>>();
  const document: FakeDocument = {
    hidden: false,
    listeners,
    addEventListener: (type, listener) => {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type)!.add(listener);
    },
    removeEventListener: (type, listener) => listeners.get(type)?.delete(listener),
    dispatch: (type) => {
      for (const listener of [...(listeners.get(type) ?? [])]) listener();
    },
  };
  const g = globalThis as { document?: unknown; window?: unknown };
  g.document = document;
  g.window = { setTimeout, clearTimeout, fetch: globalThis.fetch };
  return {
    document,
    uninstall: () => {
      delete g.document;
      delete g.window;
    },
  };
}

const request = (url: string, signal = new AbortController().signal) => ({
  url,
  headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'murmur.WatchSession', params: {} }),
  signal,
  fetch: (input: string, init: RequestInit) => globalThis.fetch(input, init),
  maxEventSize: 1_000_000,
});

async function drain(open: SseOpen): Promise<{ items: SseItem[]; error: unknown }> {
  assert.equal(open.type, 'stream');
  const items: SseItem[] = [];
  if (open.type !== 'stream') return { items, error: null };
  try {
    for (;;) {
      const next = await open.items.next();
      if (next.done) return { items, error: null };
      items.push(next.value);
    }
  } catch (error) {
    return { items, error };
  }
}

async function withServer(handler: Parameters<typeof startServer>[0], run: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startServer(handler);
  const dom = installDom();
  try {
    await run(server);
  } finally {
    dom.uninstall();
    await server.close();
  }
}

const heartbeatStream = (rpcId: number | string) =>
  `${HEARTBEAT_COMMENT}${sseEvent(rpcId, frameMessage({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' }))}${HEARTBEAT_COMMENT}`;

test('Node never selects fetch-event-source: without a DOM, auto picks fetch and forcing it is refused', () => {
  assert.equal(typeof (globalThis as { document?: unknown }).document, 'undefined');
  assert.equal(selectSseTransport('auto'), 'fetch');
  assert.equal(new MurmurClient('http://door.test').sseTransport, 'fetch');
  assert.throws(() => new MurmurClient('http://door.test', { sseTransport: 'fetch-event-source' }), /crashes Node/);
});

test('control: bare fetch-event-source 2.0.1 crashes a Node 20 process when a stream ends (dispose() touches document)', async () => {
  const server = await startServer((req, res) => {
    sseHead(res);
    res.end(sseEvent(req.rpc?.id ?? 1, { ok: true }));
  });
  try {
    const entry = createRequire(import.meta.url).resolve('@microsoft/fetch-event-source');
    const script = `
      const { fetchEventSource } = require(${JSON.stringify(entry)});
      fetchEventSource(${JSON.stringify(server.url)}, { method: 'POST', body: '{}', openWhenHidden: true, fetch, onmessage() {}, onerror(e) { throw e; } })
        .then(() => console.log('resolved'), (e) => console.log('rejected', e.message));
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.notEqual(code, 0, output);
    assert.match(output, /document is not defined/);
    assert.doesNotMatch(output, /resolved/);
  } finally {
    await server.close();
  }
});

test('control: bare fetch-event-source hands each :heartbeat to onmessage as an empty message', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.end(heartbeatStream(req.rpc!.id));
    },
    async (server) => {
      const data: string[] = [];
      await fetchEventSource(server.url, { method: 'POST', body: '{}', openWhenHidden: true, fetch: globalThis.fetch, onmessage: (m) => data.push(m.data) });
      assert.deepEqual(
        data.map((d) => (d === '' ? '<empty>' : 'event')),
        ['<empty>', 'event', '<empty>'],
      );
    },
  );
});

test('wrapper: heartbeat messages are dropped as events and reported as comments (which feed the watchdog)', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.end(heartbeatStream(req.rpc!.id));
    },
    async (server) => {
      const { items, error } = await drain(await openWithFetchEventSource(request(server.url)));
      assert.equal(error, null);
      assert.deepEqual(
        items.map((i) => i.type),
        ['comment', 'event', 'comment'],
      );
      assert.ok(items[1]!.type === 'event' && items[1]!.data.includes('connection-ack') && items[1]!.id === null);
    },
  );
});

test('wrapper: ids, CRLF lines and 2-byte chunks come through intact', async () => {
  await withServer(
    async (req, res) => {
      sseHead(res);
      const text = `${sseEvent(req.rpc!.id, status('tsk_a', 'TASK_STATE_WORKING', 'ü ✓'), 4)}${HEARTBEAT_COMMENT}`.replaceAll('\n', '\r\n');
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 2) {
        res.write(bytes.subarray(i, i + 2));
        if (i % 40 === 0) await delay(1);
      }
      res.end();
    },
    async (server) => {
      const { items } = await drain(await openWithFetchEventSource(request(server.url)));
      assert.equal(items.length, 2);
      assert.ok(items[0]!.type === 'event' && items[0]!.id === '4');
      assert.ok(items[0]!.type === 'event' && JSON.parse(items[0]!.data).result.statusUpdate.status.message.parts[0].text === 'ü ✓');
      assert.equal(items[1]!.type, 'comment');
    },
  );
});

test('control: bare fetch-event-source without openWhenHidden re-POSTs the request when a hidden tab is shown again', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc?.id ?? 1, { n: 1 }));
    },
    async (server) => {
      const dom = (globalThis as unknown as { document: FakeDocument }).document;
      const controller = new AbortController();
      const done = fetchEventSource(server.url, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1}',
        signal: controller.signal,
        fetch: globalThis.fetch,
        onmessage() {},
      });
      await waitFor(() => server.requests.length === 1, 3000, 'the first POST');
      assert.equal(dom.listeners.get('visibilitychange')?.size, 1);
      dom.hidden = true;
      dom.dispatch('visibilitychange');
      dom.hidden = false;
      dom.dispatch('visibilitychange');
      await waitFor(() => server.requests.length === 2, 3000, 'the same POST to go out twice');
      assert.equal(server.requests[0]!.body, server.requests[1]!.body);
      controller.abort();
      await done;
    },
  );
});

test('wrapper: openWhenHidden is set, so tab visibility never aborts or re-sends the request', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, { n: 1 }));
    },
    async (server) => {
      const dom = (globalThis as unknown as { document: FakeDocument }).document;
      const controller = new AbortController();
      const open = await openWithFetchEventSource(request(server.url, controller.signal));
      assert.equal(open.type, 'stream');
      assert.equal(dom.listeners.get('visibilitychange')?.size ?? 0, 0);
      dom.hidden = true;
      dom.dispatch('visibilitychange');
      dom.hidden = false;
      dom.dispatch('visibilitychange');
      await delay(50);
      assert.equal(server.requests.length, 1);
      controller.abort(new Error('done'));
      const { items, error } = await drain(open);
      assert.equal(items.length, 1);
      assert.match(String(error), /done/);
      await server.requests[0]!.closed;
    },
  );
});

test('control: bare fetch-event-source without onerror retries a dropped stream every second', async () => {
  await withServer(
    async (_req, res) => {
      sseHead(res);
      res.write('data: {}\n\n');
      await delay(10);
      res.socket?.destroy();
    },
    async (server) => {
      const controller = new AbortController();
      const done = fetchEventSource(server.url, {
        method: 'POST',
        body: '{}',
        openWhenHidden: true,
        signal: controller.signal,
        fetch: globalThis.fetch,
        onmessage() {},
      });
      await waitFor(() => server.requests.length >= 2, 4000, 'a retry');
      controller.abort();
      await done;
    },
  );
});

test('wrapper: onerror throws, so a dropped stream fails once and fetch-event-source never retries', async () => {
  await withServer(
    async (req, res) => {
      sseHead(res);
      res.write(sseEvent(req.rpc!.id, { n: 1 }));
      await delay(10);
      res.socket?.destroy();
    },
    async (server) => {
      const { items, error } = await drain(await openWithFetchEventSource(request(server.url)));
      assert.equal(items.length, 1);
      assert.ok(error instanceof Error);
      await delay(1300);
      assert.equal(server.requests.length, 1);
    },
  );
});

test('wrapper: a JSON refusal is handed back as an answer with its body (and not retried)', async () => {
  await withServer(
    (req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="a"' });
      res.end(JSON.stringify({ error: 'unauthenticated', message: 'a token is required', id: req.rpc?.id }));
    },
    async (server) => {
      const open = await openWithFetchEventSource(request(server.url));
      assert.equal(open.type, 'answer');
      assert.ok(open.type === 'answer' && open.status === 401 && open.text.includes('unauthenticated'));
      assert.equal(open.headers.get('www-authenticate'), 'Bearer realm="a"');
      await delay(1200);
      assert.equal(server.requests.length, 1);
    },
  );
});

test('wrapper callbacks, unit by unit: empty data → comment, onerror rethrows, a full queue drops the connection', () => {
  const stop = new AbortController();
  const queue = new ItemQueue<SseItem>(2);
  const callbacks = wrapperCallbacks({ queue, stop, opened: () => {} });
  callbacks.onmessage({ id: '', event: '', data: '' });
  callbacks.onmessage({ id: '7', event: '', data: '{"x":1}' });
  assert.equal(queue.size, 2);
  assert.equal(stop.signal.aborted, false);
  callbacks.onmessage({ id: '', event: '', data: '{"x":2}' });
  assert.equal(stop.signal.aborted, true);
  assert.ok(stop.signal.reason instanceof ConsumerBehindError);
  const boom = new Error('boom');
  assert.throws(
    () => callbacks.onerror(boom),
    (error: unknown) => error === boom,
  );
  assert.ok(MAX_QUEUED_ITEMS >= 1024);
});

test('the whole client over the wrapper: a WatchSession drop reconnects with Last-Event-ID and de-duplicates', async () => {
  const ack = frameMessage({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' });
  await withServer(
    async (req, res, index) => {
      const id = req.rpc!.id;
      sseHead(res);
      res.write(sseEvent(id, ack));
      res.write(sseEvent(id, status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), 0));
      if (index === 0) {
        res.write(HEARTBEAT_COMMENT);
        await delay(10);
        res.socket?.destroy();
        return;
      }
      res.write(sseEvent(id, status('tsk_a', 'TASK_STATE_COMPLETED'), 1));
      res.end(sseEvent(id, frameMessage({ frame: 'capsule-closed' })));
    },
    async (server) => {
      const client = new MurmurClient(server.url);
      assert.equal(client.sseTransport, 'fetch-event-source');
      const { lines, error } = await collect(client.watchSession({ reconnect: { initialDelayMs: 5, maxDelayMs: 10 } }));
      assert.equal(error, null);
      assert.deepEqual(lines, [
        'conn:open',
        'frame:connection-ack - -',
        'status tsk_a 0',
        'conn:reconnecting:network-error',
        'conn:open',
        'frame:connection-ack - -',
        'status tsk_a 1',
        'frame:capsule-closed - -',
        'conn:closed:natural-end',
      ]);
      assert.equal(server.requests[1]!.headers['last-event-id'], '0');
    },
  );
});
