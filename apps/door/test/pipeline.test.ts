/**
 * The request pipeline of seed 000, "What the door answers", steps 5–13, and the order between them: the first
 * step a request fails answers it. Every answer from step 6 on is HTTP 200, application/json, and a refusal
 * carries no A2A-Extensions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc, waitForState } from './support/rpc.js';
import {
  assertRpcError,
  envelope,
  httpRequest,
  PUSH_CONFIG_METHODS,
  PUSH_NOT_SUPPORTED,
  postRaw,
  probeMethod,
  rawHttp,
  RPC_HEADERS,
  STANDARD,
  traceRecords,
  versionRefusal,
} from './support/wire.js';

const DOOR_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';

const SCRIPT = `
rules:
  - match: 'sleep'
    turns:
      - sleep_ms: 60000
        answer: slept
default:
  turns:
    - answer: ok
`;

const RETIRED = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'agent/getAuthenticatedExtendedCard',
  'stream/watch',
  'session/stop',
];

let door: DoorProcess;
let none: DoorProcess;

before(async () => {
  [door, none] = await Promise.all([
    runDoor(makeCapsule(manifestYaml({ name: 'pipeline', acceptance: 'queue' }), SCRIPT)),
    runDoor(makeCapsule(manifestYaml({ name: 'pipeline-none', acceptance: 'none' }), SCRIPT)),
  ]);
});
after(async () => {
  await Promise.all([door?.stop(), none?.stop()]);
});

async function totalTasks(url: string): Promise<number> {
  const answer = await rpc(url, 'ListTasks', {});
  return answer.json.result.totalSize as number;
}

/** Starts a task that sleeps a minute and waits until it runs; the caller cancels it. */
async function startSleeper(url: string): Promise<string> {
  const answer = await rpc(url, 'SendMessage', {
    message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'sleep' }] },
    configuration: { returnImmediately: true },
  });
  const id = answer.json.result.task.id as string;
  await waitForState(url, id, 'TASK_STATE_WORKING');
  return id;
}

function assertNotFound(answer: { status: number; headers: Record<string, unknown>; json: unknown; text: string }): void {
  assert.equal(answer.status, 404, answer.text);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
  const body = answer.json as any;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
  assert.equal(body.error, 'not_found');
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
}

describe('step 5: anything but a POST / with content-type application/json and a body is 404', () => {
  const valid = JSON.stringify(envelope('ListTasks', {}));

  test('GET /', async () => {
    assertNotFound(await httpRequest(door.url, { method: 'GET', path: '/', headers: { 'A2A-Version': '1.0' } }));
  });

  test('other methods on /', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      assertNotFound(await httpRequest(door.url, { method, path: '/', headers: RPC_HEADERS, body: valid }));
    }
  });

  test('POST to another path', async () => {
    for (const path of ['/x', '/rpc', '//', '/.well-known/agent-card.json', '/resources/filesx', '/resourcesx/peer/h']) {
      assertNotFound(await httpRequest(door.url, { method: 'POST', path, headers: RPC_HEADERS, body: valid }));
    }
  });

  test('POST / without a content-type', async () => {
    assertNotFound(await httpRequest(door.url, { method: 'POST', path: '/', headers: { 'A2A-Version': '1.0' }, body: valid }));
  });

  test('POST / with a content-type that is not application/json', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json-rpc', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      assertNotFound(await httpRequest(door.url, { method: 'POST', path: '/', headers: { 'content-type': type, 'A2A-Version': '1.0' }, body: valid }));
    }
  });

  test('POST / with application/json and an empty body', async () => {
    assertNotFound(
      await httpRequest(door.url, { method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'content-length': '0' } }),
    );
    assertNotFound(await httpRequest(door.url, { method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: '' }));
  });

  test("an empty or malformed content-type is 404, never the framework's 415", async () => {
    for (const type of ['', ' ', ';;', '/', 'a/b/c', 'application/json, text/plain', '\u00e9/json', 'application/', 'json']) {
      const answer = await rawHttp(door.url, ['POST / HTTP/1.1', `Content-Type: ${type}`, 'A2A-Version: 1.0'], valid);
      assertNotFound(answer);
    }
  });

  test('a request target that is not origin-form, or that does not decode, is 404', async () => {
    for (const target of ['*', 'http://127.0.0.1/', '/%zz', '/%C3%28', '/?%zz']) {
      const answer = await rawHttp(door.url, [`POST ${target} HTTP/1.1`, 'Content-Type: application/json', 'A2A-Version: 1.0'], valid);
      if (target === '/?%zz') assert.equal(answer.json.result.tasks !== undefined, true, `${target}: ${answer.text}`);
      else assertNotFound(answer);
    }
    assertNotFound(await rawHttp(door.url, ['OPTIONS * HTTP/1.1'], ''));
  });

  test('application/json with parameters, or in another case, is served', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const answer = await postRaw(door.url, envelope('GetTask', { id: 'tsk_nope' }, 5), { 'content-type': type, 'A2A-Version': '1.0' });
      assertRpcError(answer, { code: -32001, id: 5, reason: 'TASK_NOT_FOUND', metadata: { taskId: 'tsk_nope' } });
    }
  });
});

describe('step 6: a body that is not JSON is -32700 with id null', () => {
  const bodies = [
    '{"jsonrpc":"2.0","id":1,"method":"GetTask"',
    '{"jsonrpc":"2.0","id":1,',
    'garbage',
    '{',
    '[1, 2',
    "{'jsonrpc': '2.0', 'id': 1, 'method': 'GetTask'}",
    '{"jsonrpc":"2.0","id":1,"method":"GetTask"}}',
    '{"jsonrpc":"2.0","id":1,"method":"GetTask",}',
    'undefined',
    'NaN',
    '{"id": 1, "method": "GetTask", "jsonrpc": "2.0", "params": {"id": "\u0001"}}',
  ];
  for (const body of bodies) {
    test(`-32700 for ${JSON.stringify(body)}`, async () => {
      assertRpcError(await postRaw(door.url, body), { ...STANDARD.parse, id: null });
    });
  }
});

describe('step 7: a body that is not a JSON-RPC 2.0 request is -32600', () => {
  const cases: Array<{ name: string; body: unknown; id: unknown }> = [
    { name: 'an empty batch', body: [], id: null },
    { name: 'a batch of one valid request', body: [envelope('ListTasks', {}, 1)], id: null },
    { name: 'a notification (no id)', body: { jsonrpc: '2.0', method: 'ListTasks', params: {} }, id: null },
    { name: 'id null', body: envelope('ListTasks', {}, null), id: null },
    { name: 'id true', body: envelope('ListTasks', {}, true), id: null },
    { name: 'id a float', body: envelope('ListTasks', {}, 1.5), id: null },
    { name: 'id an object', body: envelope('ListTasks', {}, { a: 1 }), id: null },
    { name: 'id an array', body: envelope('ListTasks', {}, [1]), id: null },
    { name: 'jsonrpc "1.0", echoing the valid id', body: { jsonrpc: '1.0', id: 7, method: 'ListTasks' }, id: 7 },
    { name: 'jsonrpc missing, echoing the valid id', body: { id: 'abc', method: 'ListTasks' }, id: 'abc' },
    { name: 'jsonrpc the number 2.0', body: { jsonrpc: 2.0, id: 8, method: 'ListTasks' }, id: 8 },
    { name: 'method a number', body: { jsonrpc: '2.0', id: 3, method: 5 }, id: 3 },
    { name: 'method null', body: { jsonrpc: '2.0', id: 'x', method: null }, id: 'x' },
    { name: 'method missing', body: { jsonrpc: '2.0', id: 4 }, id: 4 },
    { name: 'method an array', body: { jsonrpc: '2.0', id: 4, method: ['GetTask'] }, id: 4 },
    { name: 'a bare string', body: '"hello"', id: null },
    { name: 'a bare number', body: '42', id: null },
    { name: 'null', body: 'null', id: null },
    { name: 'jsonrpc "1.0" and id a float', body: { jsonrpc: '1.0', id: 2.5, method: 'ListTasks' }, id: null },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      assertRpcError(await postRaw(door.url, c.body), { ...STANDARD.invalidRequest, id: c.id });
    });
  }

  test('string and integer ids are valid and echoed with their type, 0 and negative included', async () => {
    for (const id of ['', 'req-1', 0, -5, 12345678901]) {
      const answer = await postRaw(door.url, envelope('GetTask', { id: 'tsk_nope' }, id));
      assertRpcError(answer, { code: -32001, id });
    }
  });

  test('members beyond jsonrpc, id, method and params are ignored', async () => {
    const answer = await postRaw(door.url, { ...envelope('ListTasks', {}, 9), extra: 1, result: 5, error: { code: 1 } });
    assert.equal(answer.status, 200);
    assert.equal(answer.json.id, 9);
    assert.equal(typeof answer.json.result.totalSize, 'number');
  });
});

describe('step 8: A2A-Version', () => {
  const refused = ['0.3', '1', '1.1', '2.0', '1.0x', '1.0.', '1.0.x', 'v1.0', '1.00', '1.0,1.0'];
  test('absent: -32009 with requestedVersion ""', async () => {
    const answer = await postRaw(door.url, envelope('ListTasks', {}, 1), { 'content-type': 'application/json' });
    assertRpcError(answer, { ...versionRefusal(''), id: 1 });
  });
  test('empty: -32009 with requestedVersion ""', async () => {
    const answer = await postRaw(door.url, envelope('ListTasks', {}, 1), { 'content-type': 'application/json', 'A2A-Version': '' });
    assertRpcError(answer, { ...versionRefusal(''), id: 1 });
  });
  for (const value of refused) {
    test(`${JSON.stringify(value)}: -32009 naming it`, async () => {
      const answer = await postRaw(door.url, envelope('ListTasks', {}, 'v'), { 'content-type': 'application/json', 'A2A-Version': value });
      assertRpcError(answer, { ...versionRefusal(value), id: 'v' });
    });
  }
  test('two header lines: -32009 whatever their values, every value joined with ","', async () => {
    for (const lines of [
      ['1.0', '1.0'],
      ['1.0', '0.3'],
      ['', '1.0'],
    ]) {
      const answer = await postRaw(door.url, envelope('ListTasks', {}, 2), { 'content-type': 'application/json', 'A2A-Version': lines });
      assertRpcError(answer, { ...versionRefusal(lines.join(',')), id: 2 });
    }
  });
  test('two lines under names in different cases are still two lines', async () => {
    const body = JSON.stringify(envelope('ListTasks', {}, 2));
    const answer = await rawHttp(door.url, ['POST / HTTP/1.1', 'Content-Type: application/json', 'A2A-Version: 1.0', 'a2a-version: 1.0.1'], body);
    assertRpcError(answer, { ...versionRefusal('1.0,1.0.1'), id: 2 });
  });
  test('1.0, 1.0.<digits>, surrounding whitespace and any case of the header name are served', async () => {
    const variants: Array<Record<string, string>> = [
      { 'A2A-Version': '1.0' },
      { 'A2A-Version': '1.0.1' },
      { 'A2A-Version': '1.0.12' },
      { 'A2A-Version': ' 1.0 ' },
      { 'A2A-Version': '\t1.0.1 ' },
      { 'a2a-version': '1.0' },
      { 'A2A-VERSION': '1.0' },
    ];
    for (const header of variants) {
      const answer = await postRaw(door.url, envelope('ListTasks', {}, 3), { 'content-type': 'application/json', ...header });
      assert.equal(answer.status, 200);
      assert.equal(typeof answer.json.result?.totalSize, 'number', `${JSON.stringify(header)}: ${answer.text}`);
    }
  });
  test('a query parameter does not set the version', async () => {
    for (const path of ['/?A2A-Version=1.0', '/?a2a-version=1.0']) {
      const absent = await httpRequest(door.url, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope('ListTasks', {}, 4)),
      });
      assertRpcError(absent, { ...versionRefusal(''), id: 4 });
    }
    const wrong = await httpRequest(door.url, {
      method: 'POST',
      path: '/?A2A-Version=1.0',
      headers: { 'content-type': 'application/json', 'A2A-Version': '0.3' },
      body: JSON.stringify(envelope('ListTasks', {}, 4)),
    });
    assertRpcError(wrong, { ...versionRefusal('0.3'), id: 4 });
  });
  test('every method is negotiated: push, extended card, retired and murmur methods alike', async () => {
    for (const method of [
      'GetTask',
      'SendMessage',
      'murmur.StopSession',
      'murmur.WatchSession',
      'SendStreamingMessage',
      'GetExtendedAgentCard',
      'NoSuchMethod',
      ...PUSH_CONFIG_METHODS,
      ...RETIRED,
    ]) {
      const answer = await postRaw(door.url, envelope(method, {}, 6), { 'content-type': 'application/json', 'A2A-Version': '0.3' });
      assertRpcError(answer, { ...versionRefusal('0.3'), id: 6 });
    }
  });
  test('a refused SendMessage starts nothing', async () => {
    const before = await totalTasks(door.url);
    const traceBefore = traceRecords(door.recordsDir).filter((r) => r.type === 'task_start').length;
    const answer = await postRaw(door.url, envelope('SendMessage', { message: { messageId: 'm-v', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }, 1), {
      'content-type': 'application/json',
      'A2A-Version': '0.3',
    });
    assertRpcError(answer, { ...versionRefusal('0.3'), id: 1 });
    assert.equal(await totalTasks(door.url), before);
    assert.equal(traceRecords(door.recordsDir).filter((r) => r.type === 'task_start').length, traceBefore);
  });
  test('a refused murmur.StopSession stops nothing', async () => {
    const id = await startSleeper(door.url);
    try {
      const answer = await postRaw(door.url, envelope('murmur.StopSession', {}, 1), { 'content-type': 'application/json' });
      assertRpcError(answer, { ...versionRefusal(''), id: 1 });
      const task = await rpc(door.url, 'GetTask', { id });
      assert.equal(task.json.result.status.state, 'TASK_STATE_WORKING');
    } finally {
      await rpc(door.url, 'CancelTask', { id });
    }
  });
});

describe('step 9: completions', () => {
  const completion = (headers: Record<string, string>) => ({ ...RPC_HEADERS, 'x-murmur-task-origin': 'completion', ...headers });
  const completionMessage = { message: { messageId: 'msg-c', role: 'ROLE_AGENT', parts: [{ data: { delegation_id: 'dlg_abc', received: true } }] } };

  test('naming no session: -31001 with addressedSession ""', async () => {
    const answer = await postRaw(door.url, envelope('SendMessage', completionMessage, 1), completion({}));
    assertRpcError(answer, { code: -31001, id: 1, reason: 'COMPLETION_MISADDRESSED', domain: 'murmur.nexus', metadata: { addressedSession: '' } });
  });
  test('naming another session: -31001 naming that session, never this one', async () => {
    const other = 'ses_00000000000000000000000000000000';
    const answer = await postRaw(door.url, envelope('SendMessage', completionMessage, 2), completion({ 'x-murmur-completion-session': other }));
    assertRpcError(answer, { code: -31001, id: 2, reason: 'COMPLETION_MISADDRESSED', domain: 'murmur.nexus', metadata: { addressedSession: other } });
    assert.ok(!answer.text.includes(door.sessionId), 'the refusal never names the session running here');
  });
  test('the origin header name matches in any case', async () => {
    const answer = await postRaw(door.url, envelope('SendMessage', completionMessage, 2), { ...RPC_HEADERS, 'X-Murmur-Task-Origin': 'completion' });
    assertRpcError(answer, { code: -31001, metadata: { addressedSession: '' }, domain: 'murmur.nexus' });
  });
  test('a comma-separated or repeated origin naming completion is a completion, as peer consent reads peer', async () => {
    for (const headers of [
      { ...RPC_HEADERS, 'x-murmur-task-origin': 'completion, a2a' },
      { ...RPC_HEADERS, 'x-murmur-task-origin': 'a2a ,Completion' },
      { ...RPC_HEADERS, 'x-murmur-task-origin': ['a2a', 'completion'] },
    ]) {
      const before = await rpc(door.url, 'ListTasks', {});
      const answer = await postRaw(
        door.url,
        envelope('SendMessage', { message: { messageId: 'm-origin', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, 7),
        headers,
      );
      assertRpcError(answer, { code: -31001, id: 7, domain: 'murmur.nexus', metadata: { addressedSession: '' } });
      const after = await rpc(door.url, 'ListTasks', {});
      assert.equal(after.json.result.totalSize, before.json.result.totalSize, `no task started for ${JSON.stringify(headers)}`);
    }
  });
  test('misaddressed is refused before the method or params is read', async () => {
    for (const [method, params] of [
      ['NoSuchMethod', {}],
      ['GetTask', {}],
      ['CreateTaskPushNotificationConfig', {}],
      ['SendMessage', 'not an object'],
      ['SendMessage', { tenant: 'acme' }],
    ] as const) {
      const answer = await postRaw(door.url, envelope(method, params, 3), completion({ 'x-murmur-completion-session': 'ses_other' }));
      assertRpcError(answer, { code: -31001, id: 3, domain: 'murmur.nexus', metadata: { addressedSession: 'ses_other' } });
    }
  });
  test('addressed here, SendMessage naming a delegation no task awaits: -31002 with delegationId', async () => {
    const answer = await postRaw(
      door.url,
      envelope('SendMessage', completionMessage, 4),
      completion({ 'x-murmur-completion-session': door.sessionId, 'x-murmur-delegation-id': 'dlg_abc' }),
    );
    assertRpcError(answer, {
      code: -31002,
      id: 4,
      message: 'no task in this session is waiting for delegation dlg_abc',
      reason: 'COMPLETION_NOT_AWAITED',
      domain: 'murmur.nexus',
      metadata: { delegationId: 'dlg_abc' },
    });
  });
  test('addressed here, naming no delegation: -31002 without delegationId', async () => {
    const answer = await postRaw(door.url, envelope('SendMessage', completionMessage, 5), completion({ 'x-murmur-completion-session': door.sessionId }));
    assertRpcError(answer, { code: -31002, id: 5, reason: 'COMPLETION_NOT_AWAITED', domain: 'murmur.nexus', metadata: {} });
  });
  test('-31002 comes before params is read', async () => {
    for (const params of ['x', [], { tenant: 'acme' }, { message: 5 }]) {
      const answer = await postRaw(
        door.url,
        envelope('SendMessage', params, 6),
        completion({ 'x-murmur-completion-session': door.sessionId, 'x-murmur-delegation-id': 'dlg_x' }),
      );
      assertRpcError(answer, { code: -31002, id: 6, domain: 'murmur.nexus', metadata: { delegationId: 'dlg_x' } });
    }
  });
  test('addressed here with any method but SendMessage: -32601', async () => {
    for (const method of [
      'GetTask',
      'ListTasks',
      'murmur.StopSession',
      'SendStreamingMessage',
      'GetExtendedAgentCard',
      'NoSuchMethod',
      ...PUSH_CONFIG_METHODS,
    ]) {
      const answer = await postRaw(
        door.url,
        envelope(method, {}, 7),
        completion({ 'x-murmur-completion-session': door.sessionId, 'x-murmur-delegation-id': 'dlg_abc' }),
      );
      assertRpcError(answer, { ...STANDARD.methodNotFound, id: 7 });
    }
  });
  test('a completion is negotiated too: a wrong version answers -32009 first', async () => {
    const answer = await postRaw(door.url, envelope('SendMessage', completionMessage, 8), {
      'content-type': 'application/json',
      'x-murmur-task-origin': 'completion',
    });
    assertRpcError(answer, { ...versionRefusal(''), id: 8 });
  });
  test('a refused completion starts no task', async () => {
    const before = await totalTasks(door.url);
    await postRaw(
      door.url,
      envelope('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, 9),
      completion({ 'x-murmur-completion-session': door.sessionId }),
    );
    assert.equal(await totalTasks(door.url), before);
  });
});

describe('step 10: the method', () => {
  test('unknown methods, retired names, and names differing in case or whitespace: -32601 with no data', async () => {
    const names = [
      'NoSuchMethod',
      '',
      ...RETIRED,
      'sendMessage',
      'SENDMESSAGE',
      'getTask',
      'gettask',
      ' GetTask',
      'GetTask ',
      'GetTask\n',
      'Get Task',
      'listTasks',
      'cancelTask',
      'StopSession',
      'murmur.stopSession',
      'murmur.StopSession ',
      'Murmur.StopSession',
      'murmur/StopSession',
      'murmur.GetTask',
      'createTaskPushNotificationConfig',
      'getExtendedAgentCard',
      'AgentCard',
    ];
    for (const name of names) {
      const answer = await postRaw(door.url, envelope(name, {}, 'n'));
      assertRpcError(answer, { ...STANDARD.methodNotFound, id: 'n' });
    }
  });

  test('the four push config methods: -32003 with {} metadata, whatever the params', async () => {
    for (const method of PUSH_CONFIG_METHODS) {
      for (const params of [undefined, {}, { id: 'tsk_x', tenant: 'acme' }, 'not an object', [], null, { taskId: 5, pushNotificationConfig: 'x' }]) {
        const answer = await postRaw(door.url, envelope(method, params, 11));
        assertRpcError(answer, { ...PUSH_NOT_SUPPORTED, id: 11 });
      }
    }
  });

  test('GetExtendedAgentCard on a public door: -32004 with {} metadata, whatever the params', async () => {
    for (const params of [undefined, {}, 'x', { tenant: 'acme' }]) {
      const answer = await postRaw(door.url, envelope('GetExtendedAgentCard', params, 12));
      assertRpcError(answer, { code: -32004, id: 12, reason: 'UNSUPPORTED_OPERATION', metadata: {} });
    }
  });

  test('task_acceptance none: SendMessage -32601; SendStreamingMessage and SubscribeToTask -32004 with {}', async () => {
    const message = { message: { messageId: 'm-none', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
    assertRpcError(await postRaw(none.url, envelope('SendMessage', message, 1)), { ...STANDARD.methodNotFound, id: 1 });
    assertRpcError(await postRaw(none.url, envelope('SendStreamingMessage', message, 2)), {
      code: -32004,
      id: 2,
      reason: 'UNSUPPORTED_OPERATION',
      metadata: {},
    });
    assertRpcError(await postRaw(none.url, envelope('SubscribeToTask', { id: 'tsk_x' }, 3)), {
      code: -32004,
      id: 3,
      reason: 'UNSUPPORTED_OPERATION',
      metadata: {},
    });
    assertRpcError(await postRaw(none.url, envelope('SubscribeToTask', 'bad params', 3)), { code: -32004, id: 3, metadata: {} });
    assertRpcError(await postRaw(none.url, envelope('GetExtendedAgentCard', {}, 4)), { code: -32004, id: 4, metadata: {} });
    for (const method of PUSH_CONFIG_METHODS) assertRpcError(await postRaw(none.url, envelope(method, {}, 5)), { ...PUSH_NOT_SUPPORTED, id: 5 });
    const list = await postRaw(none.url, envelope('ListTasks', {}, 6));
    assert.deepEqual(list.json.result, { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });

  test('every method the card lists answers something other than -32601, and every other A2A or murmur name answers -32601, -32003 or -32004', async () => {
    const universe = [
      'SendMessage',
      'SendStreamingMessage',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'SubscribeToTask',
      ...PUSH_CONFIG_METHODS,
      'GetExtendedAgentCard',
      'murmur.WatchSession',
      'murmur.StopSession',
    ];
    for (const d of [door, none]) {
      const card = (await (await fetch(`${d.url}/.well-known/agent-card.json`)).json()) as {
        capabilities: { extensions: Array<{ uri: string; params: { methods: string[] } }> };
      };
      const listed = card.capabilities.extensions.find((e) => e.uri === DOOR_URI)!.params.methods;
      for (const method of universe) {
        // murmur.StopSession is safe to call here: nothing is live, and it ends no process. A stream is dropped at once.
        const answer = await probeMethod(d.url, method, { id: '' });
        const code = answer.kind === 'json' ? answer.code : null;
        if (listed.includes(method)) assert.notEqual(code, -32601, `${method} is listed but answers -32601`);
        else assert.ok(code !== null && [-32601, -32003, -32004].includes(code), `${method} is not listed but answers ${JSON.stringify(answer)}`);
      }
    }
  });
});

describe('step 12: params that is present and not an object is -32602', () => {
  for (const method of ['GetTask', 'ListTasks', 'CancelTask', 'SendMessage', 'murmur.StopSession']) {
    test(method, async () => {
      for (const params of [[], [{ id: 'tsk_x' }], 'string', null, 5, true]) {
        const answer = await postRaw(door.url, envelope(method, params, 'p'));
        assertRpcError(answer, { code: -32602, id: 'p', message: 'Invalid params: params must be an object', metadata: null });
      }
    });
  }
  test('params omitted reads as {}', async () => {
    const answer = await postRaw(door.url, envelope('ListTasks', undefined, 13));
    assert.equal(typeof answer.json.result.totalSize, 'number');
    assertRpcError(await postRaw(door.url, envelope('GetTask', undefined, 14)), { code: -32602, id: 14, message: 'GetTask requires an id' });
  });
});

describe('step 13: a tenant other than "" is -32602', () => {
  const refusal = (shown: string) => `Invalid params: tenant ${shown} names a tenant; this agent serves no tenants, so omit tenant`;

  test('on every method the door serves, with the value shown as JSON', async () => {
    const cases: Array<[unknown, string]> = [
      ['acme', '"acme"'],
      [7, '7'],
      [null, 'null'],
      [false, 'false'],
      [{}, '{}'],
      [' ', '" "'],
    ];
    for (const method of ['GetTask', 'ListTasks', 'CancelTask', 'SendMessage', 'murmur.StopSession']) {
      for (const [tenant, shown] of cases) {
        const answer = await postRaw(door.url, envelope(method, { tenant, id: 'tsk_x' }, 't'));
        assertRpcError(answer, { code: -32602, id: 't', message: refusal(shown), metadata: null });
      }
    }
  });

  test('the exact texts the seed shows', async () => {
    assertRpcError(await postRaw(door.url, envelope('ListTasks', { tenant: 'acme' }, 1)), {
      code: -32602,
      message: 'Invalid params: tenant "acme" names a tenant; this agent serves no tenants, so omit tenant',
    });
    assertRpcError(await postRaw(door.url, envelope('ListTasks', { tenant: 7 }, 1)), {
      code: -32602,
      message: 'Invalid params: tenant 7 names a tenant; this agent serves no tenants, so omit tenant',
    });
  });

  test('tenant "" is served as if absent', async () => {
    const list = await postRaw(door.url, envelope('ListTasks', { tenant: '' }, 1));
    assert.equal(typeof list.json.result.totalSize, 'number');
    assertRpcError(await postRaw(door.url, envelope('GetTask', { tenant: '', id: 'tsk_nope' }, 2)), { code: -32001, metadata: { taskId: 'tsk_nope' } });
  });

  test('a tenant on SendMessage starts nothing', async () => {
    const before = await totalTasks(door.url);
    const answer = await postRaw(
      door.url,
      envelope('SendMessage', { tenant: 'acme', message: { messageId: 'm-t', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }, 1),
    );
    assertRpcError(answer, { code: -32602, message: refusal('"acme"') });
    assert.equal(await totalTasks(door.url), before);
  });

  test('a tenant on murmur.StopSession is refused before anything is cancelled', async () => {
    const id = await startSleeper(door.url);
    try {
      const answer = await postRaw(door.url, envelope('murmur.StopSession', { tenant: 'acme' }, 1));
      assertRpcError(answer, { code: -32602, id: 1, message: refusal('"acme"') });
      const task = await rpc(door.url, 'GetTask', { id });
      assert.equal(task.json.result.status.state, 'TASK_STATE_WORKING');
      // A tenant on CancelTask is refused before the task is touched, too.
      assertRpcError(await postRaw(door.url, envelope('CancelTask', { id, tenant: 'acme' }, 2)), { code: -32602, message: refusal('"acme"') });
      assert.equal((await rpc(door.url, 'GetTask', { id })).json.result.status.state, 'TASK_STATE_WORKING');
      // The served call cancels it, and names the door extension it used.
      const stop = await postRaw(door.url, envelope('murmur.StopSession', {}, 3));
      assert.equal(stop.status, 200);
      assert.deepEqual(stop.json.result.canceled, [id]);
      assert.equal(stop.headers['a2a-extensions'], DOOR_URI);
    } finally {
      await rpc(door.url, 'CancelTask', { id });
    }
  });
});

describe('check order: the earliest failing step answers', () => {
  test('not found (5) before a bad version (8)', async () => {
    assertNotFound(await httpRequest(door.url, { method: 'POST', path: '/', headers: { 'content-type': 'text/plain', 'A2A-Version': '0.3' }, body: 'x' }));
  });
  test('not JSON (6) before a bad version (8)', async () => {
    assertRpcError(await postRaw(door.url, '{', { 'content-type': 'application/json', 'A2A-Version': '0.3' }), { ...STANDARD.parse, id: null });
  });
  test('not JSON-RPC (7) before a bad version (8)', async () => {
    assertRpcError(await postRaw(door.url, { jsonrpc: '1.0', id: 1, method: 'NoSuch' }, { 'content-type': 'application/json' }), {
      ...STANDARD.invalidRequest,
      id: 1,
    });
  });
  test('a bad version (8) before an unknown method (10)', async () => {
    assertRpcError(await postRaw(door.url, envelope('NoSuchMethod', {}, 1), { 'content-type': 'application/json', 'A2A-Version': '2.0' }), {
      ...versionRefusal('2.0'),
      id: 1,
    });
  });
  test('a bad version (8) before a push config method (10)', async () => {
    assertRpcError(await postRaw(door.url, envelope('GetTaskPushNotificationConfig', {}, 1), { 'content-type': 'application/json', 'A2A-Version': '1.1' }), {
      ...versionRefusal('1.1'),
      id: 1,
    });
  });
  test('a bad version (8) before params (12) and tenant (13)', async () => {
    assertRpcError(await postRaw(door.url, envelope('GetTask', 'x', 1), { 'content-type': 'application/json' }), { ...versionRefusal(''), id: 1 });
    assertRpcError(await postRaw(door.url, envelope('GetTask', { tenant: 'acme' }, 1), { 'content-type': 'application/json' }), {
      ...versionRefusal(''),
      id: 1,
    });
  });
  test('an unknown method (10) before params (12) and tenant (13)', async () => {
    assertRpcError(await postRaw(door.url, envelope('NoSuchMethod', { tenant: 'acme' }, 1)), { ...STANDARD.methodNotFound, id: 1 });
    assertRpcError(await postRaw(door.url, envelope('tasks/get', [], 1)), { ...STANDARD.methodNotFound, id: 1 });
  });
  test('a push config method (10) before a tenant (13)', async () => {
    assertRpcError(await postRaw(door.url, envelope('CreateTaskPushNotificationConfig', { tenant: 'acme' }, 1)), { ...PUSH_NOT_SUPPORTED, id: 1 });
  });
  test('params (12) before the method itself (14)', async () => {
    assertRpcError(await postRaw(door.url, envelope('SendMessage', [{ message: {} }], 1)), {
      code: -32602,
      message: 'Invalid params: params must be an object',
    });
  });
  test('a tenant (13) before the method itself (14)', async () => {
    assertRpcError(await postRaw(door.url, envelope('GetTask', { tenant: 'acme' }, 1)), { code: -32602, message: /^Invalid params: tenant "acme"/ });
    assertRpcError(await postRaw(door.url, envelope('SendMessage', { tenant: 'acme', message: 'bare' }, 1)), {
      code: -32602,
      message: /^Invalid params: tenant "acme"/,
    });
    assertRpcError(await postRaw(door.url, envelope('ListTasks', { tenant: 'acme', pageSize: -1 }, 1)), {
      code: -32602,
      message: /^Invalid params: tenant "acme"/,
    });
  });
});
