import assert from 'node:assert/strict';
import test from 'node:test';
import { DOOR_EXTENSION_URI, type ListTasksResponse, success, type Task } from '@murmur/protocol';
import { type FetchLike, isConnectionError, MurmurClient, textMessage } from '../src/index.js';
import { task } from './support/wire.js';

// The one-shot methods against a fake fetch: what goes on the wire, and what comes back.

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: { jsonrpc: string; id: number; method: string; params?: Record<string, unknown> } | null;
}

function fakeDoor(answer: (sent: Sent, index: number) => Response | Promise<Response>): { fetch: FetchLike; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    const record: Sent = {
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : null,
    };
    sent.push(record);
    return answer(record, sent.length - 1);
  };
  return { fetch, sent };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const completed: Task = {
  ...task('tsk_1', 'TASK_STATE_COMPLETED'),
  artifacts: [{ artifactId: 'response', name: 'response', parts: [{ text: 'four', mediaType: 'text/plain' }] }],
};

test('every JSON-RPC request carries A2A-Version 1.0, content-type application/json and the bearer token', async () => {
  const door = fakeDoor((sent) => json(success(sent.body!.id, completed)));
  const client = new MurmurClient('http://127.0.0.1:41873/', { fetch: door.fetch, token: 's3cret' });
  await client.getTask('tsk_1');
  const [sent] = door.sent;
  assert.equal(sent!.url, 'http://127.0.0.1:41873/');
  assert.equal(sent!.method, 'POST');
  assert.equal(sent!.headers['a2a-version'], '1.0');
  assert.equal(sent!.headers['content-type'], 'application/json');
  assert.equal(sent!.headers.authorization, 'Bearer s3cret');
  assert.deepEqual(sent!.body, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'tsk_1' } });
});

test('without a token no Authorization header is sent; request ids count up', async () => {
  const door = fakeDoor((sent) => json(success(sent.body!.id, completed)));
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  await client.getTask('a');
  await client.cancelTask('a');
  assert.equal(door.sent[0]!.headers.authorization, undefined);
  assert.deepEqual(
    door.sent.map((s) => [s.body!.id, s.body!.method]),
    [
      [1, 'GetTask'],
      [2, 'CancelTask'],
    ],
  );
});

test('sendText sends one ROLE_USER text message and returns the settled task', async () => {
  const door = fakeDoor((sent) => json(success(sent.body!.id, { task: completed })));
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  const result = await client.sendText('What is 2+2?', { contextId: 'ctx_1', returnImmediately: false });
  assert.equal(result.artifacts?.[0]?.parts[0]?.text, 'four');
  const params = door.sent[0]!.body!.params as { message: Record<string, unknown>; configuration: unknown };
  assert.equal(door.sent[0]!.body!.method, 'SendMessage');
  assert.match(String(params.message.messageId), /^msg-[0-9a-f-]{32,36}$/);
  assert.deepEqual({ ...params.message, messageId: 'x' }, { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'What is 2+2?' }], contextId: 'ctx_1' });
  assert.deepEqual(params.configuration, { returnImmediately: false });
});

test('reply names the waiting task in message.taskId', async () => {
  const door = fakeDoor((sent) => json(success(sent.body!.id, { task: completed })));
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  await client.reply('tsk_wait', 'main', { returnImmediately: true });
  const params = door.sent[0]!.body!.params as { message: Record<string, unknown>; configuration: unknown };
  assert.equal(params.message.taskId, 'tsk_wait');
  assert.deepEqual(params.message.parts, [{ text: 'main' }]);
  assert.deepEqual(params.configuration, { returnImmediately: true });
});

test('textMessage: forgetSession goes under the door extension’s URI, and the URI is listed in extensions', () => {
  const message = textMessage('carry on', { contextId: 'ctx_1', forgetSession: true, messageId: 'msg-1' });
  assert.deepEqual(message, {
    messageId: 'msg-1',
    role: 'ROLE_USER',
    parts: [{ text: 'carry on' }],
    contextId: 'ctx_1',
    metadata: { [DOOR_EXTENSION_URI]: { forgetSession: true } },
    extensions: [DOOR_EXTENSION_URI],
  });
});

test('listAllTasks walks every page with nextPageToken until it is ""', async () => {
  const pages: ListTasksResponse[] = [
    { tasks: [task('t1', 'TASK_STATE_WORKING'), task('t2', 'TASK_STATE_COMPLETED')], nextPageToken: 'p2', pageSize: 2, totalSize: 5 },
    { tasks: [task('t3', 'TASK_STATE_FAILED'), task('t4', 'TASK_STATE_COMPLETED')], nextPageToken: 'p3', pageSize: 2, totalSize: 5 },
    { tasks: [task('t5', 'TASK_STATE_CANCELED')], nextPageToken: '', pageSize: 2, totalSize: 5 },
  ];
  const door = fakeDoor((sent, i) => json(success(sent.body!.id, pages[i])));
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  const ids: string[] = [];
  for await (const t of client.listAllTasks({ pageSize: 2, status: 'TASK_STATE_UNSPECIFIED' })) ids.push(t.id);
  assert.deepEqual(ids, ['t1', 't2', 't3', 't4', 't5']);
  assert.deepEqual(
    door.sent.map((s) => s.body!.params),
    [
      { pageSize: 2, status: 'TASK_STATE_UNSPECIFIED', pageToken: '' },
      { pageSize: 2, status: 'TASK_STATE_UNSPECIFIED', pageToken: 'p2' },
      { pageSize: 2, status: 'TASK_STATE_UNSPECIFIED', pageToken: 'p3' },
    ],
  );
});

test('a page token that comes back twice stops the walk instead of looping', async () => {
  const door = fakeDoor((sent) => json(success(sent.body!.id, { tasks: [], nextPageToken: 'same', pageSize: 50, totalSize: 0 })));
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  await assert.rejects(async () => {
    for await (const _ of client.listTaskPages()) {
      // walk
    }
  }, /came back twice/);
  assert.equal(door.sent.length, 2);
});

test('stopSession and getExtendedCard send the murmur and A2A method names', async () => {
  const door = fakeDoor((sent) =>
    json(success(sent.body!.id, sent.body!.method === 'murmur.StopSession' ? { session_id: 'ses_1', canceled: [], residue: [] } : { name: 'my-agent' })),
  );
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  assert.deepEqual(await client.stopSession(), { session_id: 'ses_1', canceled: [], residue: [] });
  assert.equal((await client.getExtendedCard()).name, 'my-agent');
  assert.deepEqual(door.sent[0]!.body, { jsonrpc: '2.0', id: 1, method: 'murmur.StopSession', params: {} });
  assert.deepEqual(door.sent[1]!.body, { jsonrpc: '2.0', id: 2, method: 'GetExtendedAgentCard' });
});

test('getCard reads GET /.well-known/agent-card.json', async () => {
  const door = fakeDoor(() => json({ name: 'my-agent', supportedInterfaces: [] }));
  const client = new MurmurClient('http://door.test/', { fetch: door.fetch });
  assert.equal((await client.getCard()).name, 'my-agent');
  assert.equal(door.sent[0]!.url, 'http://door.test/.well-known/agent-card.json');
  assert.equal(door.sent[0]!.method, 'GET');
  assert.equal(door.sent[0]!.headers['a2a-version'], '1.0');
});

test('getCard asks the door every time: a browser cache revalidates with the ETag (cache: no-cache)', async () => {
  const door = fakeDoor(() => json({ name: 'my-agent', supportedInterfaces: [] }));
  const modes: (RequestCache | undefined)[] = [];
  const client = new MurmurClient('http://door.test', {
    fetch: (url, init) => {
      modes.push(init?.cache);
      return door.fetch(url, init);
    },
  });
  await client.getCard();
  assert.deepEqual(modes, ['no-cache']);
});

test('a read is retried after a 503 (Retry-After honoured), with a new request id each time', async () => {
  const door = fakeDoor((sent, i) =>
    i === 0 ? json({ error: 'busy', message: 'busy' }, 503, { 'retry-after': '0' }) : json(success(sent.body!.id, completed)),
  );
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  assert.equal((await client.getTask('tsk_1')).id, 'tsk_1');
  assert.deepEqual(
    door.sent.map((s) => s.body!.id),
    [1, 2],
  );
});

test('a connection failure retries a read but never a SendMessage (the door may have started the task)', async () => {
  let calls = 0;
  const failing: FetchLike = async () => {
    calls += 1;
    throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
  };
  const client = new MurmurClient('http://door.test', { fetch: failing, retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } });
  await assert.rejects(client.getTask('x'), (error: unknown) => isConnectionError(error) && /ECONNRESET/.test(error.message));
  assert.equal(calls, 3);
  calls = 0;
  await assert.rejects(client.sendText('hi'), (error: unknown) => isConnectionError(error));
  assert.equal(calls, 1);
});

test('a SendMessage refused -32603 (nothing started) is retried with the same messageId', async () => {
  const door = fakeDoor((sent, i) =>
    json(
      i === 0
        ? { jsonrpc: '2.0', id: sent.body!.id, error: { code: -32603, message: 'Internal error: busy store' } }
        : success(sent.body!.id, { task: completed }),
    ),
  );
  const client = new MurmurClient('http://door.test', { fetch: door.fetch, retry: { initialDelayMs: 1, maxDelayMs: 2 } });
  await client.sendText('hi');
  const ids = door.sent.map((s) => (s.body!.params as { message: { messageId: string } }).message.messageId);
  assert.equal(ids.length, 2);
  assert.equal(ids[0], ids[1]);
});

test('an aborted call rejects with the signal’s reason and is not retried', async () => {
  const controller = new AbortController();
  let calls = 0;
  const hanging: FetchLike = (_url, init) => {
    calls += 1;
    return new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
  };
  const client = new MurmurClient('http://door.test', { fetch: hanging });
  const pending = client.getTask('x', { signal: controller.signal });
  controller.abort(new Error('user left'));
  await assert.rejects(pending, /user left/);
  assert.equal(calls, 1);
});

test('the client sends nothing when constructed, and picks the fetch transport in Node', () => {
  const door = fakeDoor(() => json({}));
  const client = new MurmurClient('http://door.test', { fetch: door.fetch });
  assert.equal(client.sseTransport, 'fetch');
  assert.equal(door.sent.length, 0);
  client.watchSession();
  assert.equal(door.sent.length, 0, 'a stream sends its request when iteration starts');
});
