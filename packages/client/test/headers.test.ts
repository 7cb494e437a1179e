import assert from 'node:assert/strict';
import test from 'node:test';
import { success } from '@murmur/protocol';
import { MurmurClient, type StreamOptions } from '../src/index.js';
import { collect } from './support/collect.js';
import { delay, jsonAnswer, sseEvent, sseHead, startServer } from './support/server.js';
import { frameMessage, task } from './support/wire.js';

// The `headers` option: on every request the client makes — one-shot, the card, each stream connection and its
// reconnects — received by a real HTTP server, with the client's own headers winning over one of the same name.

const FAST: StreamOptions = { reconnect: { maxRetries: 3, initialDelayMs: 5, maxDelayMs: 20 }, heartbeatTimeoutMs: 2000 };
const ack = frameMessage({ frame: 'connection-ack', role: 'observer', conversationMode: 'stateless' });
const closed = frameMessage({ frame: 'capsule-closed' });

test('the headers option goes out on JSON-RPC, the card and every stream connection, reconnects included', async () => {
  let streams = 0;
  const server = await startServer(async (req, res) => {
    if (req.method === 'GET') return jsonAnswer(res, 200, { name: 'my-agent', supportedInterfaces: [] });
    const id = req.rpc!.id;
    if (req.rpc!.method !== 'murmur.WatchSession') return jsonAnswer(res, 200, success(id, task('tsk_1', 'TASK_STATE_COMPLETED')));
    sseHead(res);
    res.write(sseEvent(id, ack));
    // The first connection dies: the reconnect must carry the headers too.
    if (streams++ === 0) {
      await delay(10);
      res.socket?.destroy();
      return;
    }
    res.write(sseEvent(id, closed));
    res.end();
  });
  try {
    const client = new MurmurClient(server.url, { headers: { 'X-Murmur-Task-Origin': 'peer', 'x-murmur-task-trust': 'untrusted' } });
    await client.getTask('tsk_1');
    await client.getCard();
    const { error } = await collect(client.watchSession(FAST));
    assert.equal(error, null);
    assert.deepEqual(
      server.requests.map((r) => r.rpc?.method ?? r.method),
      ['GetTask', 'GET', 'murmur.WatchSession', 'murmur.WatchSession'],
    );
    for (const r of server.requests) {
      assert.equal(r.headers['x-murmur-task-origin'], 'peer');
      assert.equal(r.headers['x-murmur-task-trust'], 'untrusted');
      assert.equal(r.headers['a2a-version'], '1.0');
    }
  } finally {
    await server.close();
  }
});

test("the client's own headers win over the option's, whatever their case", async () => {
  const server = await startServer((req, res) => {
    if (req.rpc === null) return jsonAnswer(res, 200, { name: 'my-agent', supportedInterfaces: [] });
    sseHead(res);
    res.write(sseEvent(req.rpc.id, closed));
    res.end();
  });
  try {
    const client = new MurmurClient(server.url, {
      token: 's3cret',
      headers: { 'a2a-version': '0.3', 'Content-Type': 'text/plain', AUTHORIZATION: 'Bearer other', Accept: 'text/html', 'last-event-id': '99' },
    });
    await client.getCard();
    await collect(client.watchSession({ ...FAST, lastEventId: '7' }));
    const [card, stream] = server.requests;
    assert.deepEqual([card!.headers['a2a-version'], card!.headers.accept, card!.headers.authorization], ['1.0', 'application/json', 'Bearer s3cret']);
    assert.deepEqual(
      [
        stream!.headers['a2a-version'],
        stream!.headers['content-type'],
        stream!.headers.accept,
        stream!.headers.authorization,
        stream!.headers['last-event-id'],
      ],
      ['1.0', 'application/json', 'text/event-stream', 'Bearer s3cret', '7'],
    );
  } finally {
    await server.close();
  }
});

test('a header the client does not set itself is sent as given: Authorization without a token', async () => {
  const server = await startServer((req, res) => jsonAnswer(res, 200, success(req.rpc!.id, task('tsk_1', 'TASK_STATE_COMPLETED'))));
  try {
    await new MurmurClient(server.url, { headers: { Authorization: 'Basic dXNlcjpwdw==' } }).getTask('tsk_1');
    assert.equal(server.requests[0]!.headers.authorization, 'Basic dXNlcjpwdw==');
  } finally {
    await server.close();
  }
});

test('a header fetch would refuse is refused by the constructor, not at the first request', () => {
  assert.throws(() => new MurmurClient('http://door.test', { headers: { 'bad name': 'x' } }), TypeError);
  assert.throws(() => new MurmurClient('http://door.test', { headers: { 'x-ok': 'line\nbreak' } }), TypeError);
});
