/**
 * The door token (seed 000, "What the door answers", steps 1–4 and 11, and the 401/403 table): every refusal's
 * status, www-authenticate and {error, message} body; the Authorization forms accepted and refused; peer consent
 * after the token; the card without a token; and where steps 2 and 11 sit among the other checks.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  as,
  assertInsufficientScope,
  assertInvalidToken,
  assertRefusalBody,
  assertRpcError,
  assertRpcResult,
  assertUnauthenticated,
  bearer,
  CARD_PATH,
  call,
  envelope,
  PUSH_CONFIG_METHODS,
  RPC_HEADERS,
  type RawAnswer,
  type RawRequest,
  raw,
  rawSocket,
  tokensOf,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';

/** examples/secure, copied: name secure, credentials watcher (read-only) and submitter. */
const EXAMPLE = fileURLToPath(new URL('../../../../examples/secure/', import.meta.url));
const REALM = 'secure';

let door: DoorProcess;
let tokens: Record<string, string>;

before(async () => {
  const dir = makeCapsule(readFileSync(`${EXAMPLE}murmur.yaml`, 'utf8'), readFileSync(`${EXAMPLE}script.yaml`, 'utf8'));
  door = await runDoor(dir);
  tokens = tokensOf(door);
});
after(async () => {
  await door?.stop();
});

const listTasks = (headers: Record<string, string | string[]> = {}): RawRequest => ({
  method: 'POST',
  path: '/',
  headers: { ...RPC_HEADERS, ...headers },
  body: envelope('ListTasks', {}, 1),
});

/** A spread of requests, each of which would answer differently once past step 2. */
function spread(headers: Record<string, string | string[]> = {}): Array<{ name: string; request: RawRequest }> {
  const rpcBody = (body: string): RawRequest => ({ method: 'POST', path: '/', headers: { ...RPC_HEADERS, ...headers }, body });
  return [
    { name: 'ListTasks', request: listTasks(headers) },
    {
      name: 'SendMessage',
      request: rpcBody(envelope('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'what is 2+2' }] } }, 2)),
    },
    { name: 'GetTask of an unknown id', request: rpcBody(envelope('GetTask', { id: 'tsk_00000000000000000000000000000000' }, 3)) },
    { name: 'murmur.StopSession', request: rpcBody(envelope('murmur.StopSession', {}, 4)) },
    { name: 'GetExtendedAgentCard', request: rpcBody(envelope('GetExtendedAgentCard', undefined, 5)) },
    { name: 'an unknown method', request: rpcBody(envelope('NoSuchMethod', {}, 6)) },
    { name: 'a push config method', request: rpcBody(envelope('CreateTaskPushNotificationConfig', {}, 7)) },
    { name: 'invalid JSON', request: rpcBody('{"jsonrpc":') },
    { name: 'a batch', request: rpcBody(`[${envelope('ListTasks', {}, 8)}]`) },
    {
      name: 'no A2A-Version',
      request: { method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...headers }, body: envelope('ListTasks', {}, 9) },
    },
    { name: 'text/plain', request: { method: 'POST', path: '/', headers: { 'content-type': 'text/plain', ...headers }, body: 'hello' } },
    { name: 'POST / without a body', request: { method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...headers } } },
    { name: 'GET /', request: { method: 'GET', path: '/', headers } },
    { name: 'PUT /', request: { ...rpcBody(envelope('ListTasks', {}, 10)), method: 'PUT' } },
    { name: 'OPTIONS /', request: { method: 'OPTIONS', path: '/', headers } },
    { name: 'POST /nope', request: { ...rpcBody(envelope('ListTasks', {}, 11)), path: '/nope' } },
    { name: 'GET /tasks/tsk_x', request: { method: 'GET', path: '/tasks/tsk_x', headers } },
    { name: 'DELETE /anything', request: { method: 'DELETE', path: '/anything', headers } },
    { name: 'GET /resources/files/a.txt', request: { method: 'GET', path: '/resources/files/a.txt', headers } },
    { name: 'POST to the card path', request: { ...rpcBody(envelope('ListTasks', {}, 12)), path: CARD_PATH } },
    { name: 'GET /.well-known/other.json', request: { method: 'GET', path: '/.well-known/other.json', headers } },
  ];
}

/** The refusal headers that must not vary with the request. */
const shape = (a: RawAnswer) => ({ status: a.status, challenge: a.headers['www-authenticate'], type: a.headers['content-type'], text: a.text });

describe('the 401/403 table', () => {
  test('no Authorization header: 401 unauthenticated, Bearer realm, the same answer whatever the path, method or body', async () => {
    const answers = await Promise.all(spread().map(async ({ name, request }) => ({ name, answer: await raw(door.url, request) })));
    for (const { name, answer } of answers) {
      assertUnauthenticated(answer, REALM, name);
      assert.deepEqual(shape(answer), shape(answers[0].answer), `${name}: says nothing about whether the path exists`);
    }
  });

  test('an Authorization header that is not Bearer <token>: 401 invalid_token', async () => {
    const cases: Array<[string, string]> = [
      ['Basic x', 'Basic x'],
      ['Basic with a valid token', `Basic ${tokens.operator}`],
      ['Bearer with no token', 'Bearer'],
      ['Bearer and a space, no token', 'Bearer '],
      ['the token alone', tokens.operator],
      ['a tab for the space', `Bearer\t${tokens.operator}`],
      ['Bearer= token', `Bearer=${tokens.operator}`],
      ['Token scheme', `Token ${tokens.operator}`],
      ['Bearers', `Bearers ${tokens.operator}`],
      ['an empty value', ''],
    ];
    for (const [name, value] of cases) assertInvalidToken(await raw(door.url, listTasks({ authorization: value })), REALM, name);
  });

  test('a token this session did not mint, or one differing only in case: 401 invalid_token', async () => {
    const op = tokens.operator;
    const swapCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
    const firstLetter = [...op].findIndex((c, i) => i >= 4 && /[a-zA-Z]/.test(c));
    const oneFlipped = op.slice(0, firstLetter) + swapCase(op[firstLetter]) + op.slice(firstLetter + 1);
    const cases: Array<[string, string]> = [
      ['an unknown token of the same shape', `mur_${'A'.repeat(op.length - 4)}`],
      ['an unknown token', 'mur_not-a-token'],
      ['the token in another case', swapCase(op)],
      ['the token with one letter in another case', oneFlipped],
      ['the token upper-cased', op.toUpperCase()],
      ['the token and one more character', `${op}x`],
      ['the token less its last character', op.slice(0, -1)],
      ['the token with a space inside', `${op.slice(0, 10)} ${op.slice(10)}`],
      ['two tokens in one line', `${op} ${tokens.watcher}`],
      ['two tokens joined by a comma', `${op}, ${tokens.watcher}`],
    ];
    for (const [name, token] of cases) assertInvalidToken(await raw(door.url, listTasks({ authorization: `Bearer ${token}` })), REALM, name);
  });

  test('more than one Authorization header line: 401 invalid_token, even when every line is valid', async () => {
    const pairs: Array<[string, string[]]> = [
      ['the same valid line twice', [`Bearer ${tokens.operator}`, `Bearer ${tokens.operator}`]],
      ['two valid tokens', [`Bearer ${tokens.operator}`, `Bearer ${tokens.watcher}`]],
      ['a valid line, then a bad one', [`Bearer ${tokens.operator}`, 'Basic x']],
      ['a bad line, then a valid one', ['Basic x', `Bearer ${tokens.operator}`]],
      ['three lines', [`Bearer ${tokens.operator}`, `Bearer ${tokens.operator}`, `Bearer ${tokens.operator}`]],
    ];
    for (const [name, lines] of pairs) {
      const answer = await raw(door.url, listTasks({ authorization: lines }));
      assertInvalidToken(answer, REALM, name);
    }
    // Written on a socket: the header name in two spellings is still two lines of one header.
    const body = envelope('ListTasks', {}, 1);
    const lines = [
      'POST / HTTP/1.1',
      'Content-Type: application/json',
      'A2A-Version: 1.0',
      `Authorization: Bearer ${tokens.operator}`,
      `AUTHORIZATION: Bearer ${tokens.operator}`,
    ];
    const answer = await rawSocket(door.url, lines, body);
    assert.equal(answer.status, 401, answer.text);
    assert.match(answer.head, /\r\nwww-authenticate: Bearer realm="secure", error="invalid_token"\r\n/i);
    assert.equal(JSON.parse(answer.text).error, 'invalid_token');
    const single = await rawSocket(door.url, lines.slice(0, 4), body);
    assert.equal(single.status, 200, single.text);
  });

  test('the scheme name Bearer matches in any case; the token matches exactly', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const answer = await raw(door.url, listTasks({ authorization: `${scheme} ${tokens.watcher}` }));
      const result = assertRpcResult(answer, scheme);
      assert.equal(typeof result.totalSize, 'number');
    }
    // The header name matches in any case too.
    const answer = await raw(door.url, listTasks({ AUTHORIZATION: `Bearer ${tokens.watcher}` }));
    assertRpcResult(answer, 'AUTHORIZATION');
  });

  test('a valid token whose credential lacks the scope: 403 insufficient_scope naming the credential and the scope', async () => {
    const before = assertRpcResult(await as(door.url, tokens.operator, 'ListTasks', {}), 'ListTasks').totalSize;
    const answer = await as(door.url, tokens.watcher, 'SendMessage', { message: { messageId: 'w1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    assertInsufficientScope(answer, REALM, 'watcher', 'SendMessage', 'watcher SendMessage');
    assert.equal(answer.text, JSON.stringify({ error: 'insufficient_scope', message: "credential 'watcher' does not reach SendMessage" }));
    const stop = await as(door.url, tokens.submitter, 'murmur.StopSession', {});
    assertInsufficientScope(stop, REALM, 'submitter', 'murmur.StopSession', 'submitter murmur.StopSession');
    // Nothing was started by the refused SendMessage.
    assert.equal(assertRpcResult(await as(door.url, tokens.operator, 'ListTasks', {}), 'ListTasks').totalSize, before);
  });
});

describe('peer consent comes after the token', () => {
  const PEER = { 'x-murmur-task-origin': 'peer' };

  test('a peer-origin request without a token is 401, not 403', async () => {
    for (const { name, request } of spread(PEER)) assertUnauthenticated(await raw(door.url, request), REALM, `peer, ${name}`);
  });

  test('a peer-origin request with a bad token is 401 invalid_token', async () => {
    assertInvalidToken(await raw(door.url, listTasks({ ...PEER, authorization: 'Bearer nope' })), REALM, 'peer, bad token');
    assertInvalidToken(
      await raw(door.url, listTasks({ ...PEER, authorization: [`Bearer ${tokens.operator}`, `Bearer ${tokens.operator}`] })),
      REALM,
      'peer, two lines',
    );
  });

  test('with a valid token, every peer-origin request gets one byte-identical 403 peer_not_accepted', async () => {
    const reference = await raw(door.url, listTasks({ ...PEER, ...bearer(tokens.operator) }));
    assert.equal(reference.status, 403, reference.text);
    assertRefusalBody(reference, 'peer_not_accepted', 'reference');
    assert.equal(reference.headers['www-authenticate'], undefined, 'peer_not_accepted carries no www-authenticate');
    for (const credential of ['operator', 'watcher', 'submitter']) {
      for (const { name, request } of spread({ ...PEER, ...bearer(tokens[credential]) })) {
        const answer = await raw(door.url, request);
        assert.equal(answer.status, 403, `${credential}, ${name}: ${answer.text}`);
        assert.equal(answer.text, reference.text, `${credential}, ${name}: byte-identical body`);
        assert.equal(answer.headers['content-type'], reference.headers['content-type'], `${credential}, ${name}`);
        assert.equal(answer.headers['www-authenticate'], undefined, `${credential}, ${name}`);
        assert.equal(answer.headers['a2a-extensions'], undefined, `${credential}, ${name}`);
      }
    }
    // The peer check is before the method: watcher lacks SendMessage, yet the answer is the peer refusal.
    const sent = await as(door.url, tokens.watcher, 'SendMessage', { message: { messageId: 'p', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, PEER);
    assert.equal(sent.text, reference.text);
  });
});

describe('step 1: the card needs no token; everything else does', () => {
  test('GET the card with no token, a bad one or two lines: 200 and the public card', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic x' },
      { authorization: 'Bearer nope' },
      { authorization: ['Bearer a', 'Bearer b'] },
      bearer(tokens.watcher),
    ]) {
      const answer = await raw(door.url, { method: 'GET', path: CARD_PATH, headers });
      assert.equal(answer.status, 200, `${JSON.stringify(headers)}: ${answer.text}`);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      assert.equal(answer.json.name, REALM);
      assert.equal(answer.json.capabilities.extendedAgentCard, true);
      assert.equal(answer.headers['www-authenticate'], undefined);
    }
  });

  test('GET the card with a query string is still the card, served without a token', async () => {
    const answer = await raw(door.url, { method: 'GET', path: `${CARD_PATH}?v=1` });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.name, REALM);
  });

  test('a path that does not exist is refused 401 without a token and 404 only past the token', async () => {
    for (const { name, request } of spread()) {
      if (
        ![
          'GET /',
          'PUT /',
          'OPTIONS /',
          'POST /nope',
          'GET /tasks/tsk_x',
          'DELETE /anything',
          'POST to the card path',
          'GET /.well-known/other.json',
          'text/plain',
          'POST / without a body',
        ].includes(name)
      )
        continue;
      assertUnauthenticated(await raw(door.url, request), REALM, `${name}, no token`);
      const withBad = { ...request, headers: { ...request.headers, authorization: 'Bearer nope' } };
      assertInvalidToken(await raw(door.url, withBad), REALM, `${name}, bad token`);
      const withToken = { ...request, headers: { ...request.headers, ...bearer(tokens.watcher) } };
      const answer = await raw(door.url, withToken);
      assert.equal(answer.status, 404, `${name}, valid token: ${answer.text}`);
    }
  });
});

describe('every request target goes through the gate', () => {
  test('POST *, OPTIONS *, an absolute-form target and a malformed escape: 401 without a token, 404 past it', async () => {
    const body = JSON.stringify(envelope('ListTasks', {}, 1));
    for (const line of ['POST * HTTP/1.1', 'OPTIONS * HTTP/1.1', 'POST http://127.0.0.1/ HTTP/1.1', 'POST /%zz HTTP/1.1', 'GET /%C3%28 HTTP/1.1']) {
      const headers = ['Content-Type: application/json', 'A2A-Version: 1.0'];
      const refused = await rawSocket(door.url, [line, ...headers], body);
      assert.equal(refused.status, 401, `${line}, no token: ${refused.text}`);
      assert.equal(JSON.parse(refused.text).error, 'unauthenticated', line);
      const bad = await rawSocket(door.url, [line, ...headers, 'Authorization: Bearer nope'], body);
      assert.equal(bad.status, 401, `${line}, bad token: ${bad.text}`);
      const past = await rawSocket(door.url, [line, ...headers, `Authorization: Bearer ${tokens.watcher}`], body);
      assert.equal(past.status, 404, `${line}, valid token: ${past.text}`);
      assert.equal(JSON.parse(past.text).error, 'not_found', line);
    }
  });

  test('a valid token with an empty or malformed content-type: 404, not 415', async () => {
    const body = JSON.stringify(envelope('ListTasks', {}, 1));
    for (const type of ['', ';;', 'a/b/c', 'application/json, text/plain']) {
      const answer = await rawSocket(
        door.url,
        ['POST / HTTP/1.1', `Content-Type: ${type}`, 'A2A-Version: 1.0', `Authorization: Bearer ${tokens.watcher}`],
        body,
      );
      assert.equal(answer.status, 404, `[${type}]: ${answer.text}`);
      assert.equal(JSON.parse(answer.text).error, 'not_found');
      const refused = await rawSocket(door.url, ['POST / HTTP/1.1', `Content-Type: ${type}`, 'A2A-Version: 1.0'], body);
      assert.equal(refused.status, 401, `[${type}], no token: ${refused.text}`);
    }
  });
});

describe('step 4: the operator plane takes the resources/files scope', () => {
  test('a credential without resources/files: 403 insufficient_scope, scope="resources/files"; the operator passes on to the plane', async () => {
    for (const target of ['/resources/files', '/resources/files/', '/resources/files/a.txt', '/resources/files/sub/b.md?x=1']) {
      for (const credential of ['watcher', 'submitter']) {
        const answer = await raw(door.url, { method: 'GET', path: target, headers: bearer(tokens[credential]) });
        assertInsufficientScope(answer, REALM, credential, 'resources/files', `${credential} GET ${target}`);
      }
      const operator = await raw(door.url, { method: 'GET', path: target, headers: bearer(tokens.operator) });
      assert.ok(operator.status !== 401 && operator.status !== 403, `operator GET ${target}: ${operator.status} ${operator.text}`);
      assertUnauthenticated(await raw(door.url, { method: 'GET', path: target }), REALM, `no token GET ${target}`);
    }
    // Not the plane: a path that only begins with the same letters is step 5's 404.
    assert.equal((await raw(door.url, { method: 'GET', path: '/resources/filesx', headers: bearer(tokens.watcher) })).status, 404);
  });
});

describe('where steps 2 and 11 sit in the order', () => {
  test('a bad token with a bad A2A-Version: 401 (step 2 before step 8)', async () => {
    const answer = await call(door.url, 'ListTasks', {}, { 'a2a-version': '0.3', authorization: 'Bearer nope' });
    assertInvalidToken(answer, REALM, 'bad token, version 0.3');
    const none = await raw(door.url, { method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: envelope('SendMessage', {}) });
    assertUnauthenticated(none, REALM, 'no token, no version');
  });

  test('a valid token lacking the scope with a bad A2A-Version: -32009 (step 8 before step 11)', async () => {
    for (const version of ['0.3', '2.0']) {
      const answer = await as(
        door.url,
        tokens.watcher,
        'SendMessage',
        { message: { messageId: 'v', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
        { 'a2a-version': version },
      );
      const error = assertRpcError(answer, -32009, `version ${version}`);
      assert.equal(error.data[0].metadata.requestedVersion, version);
    }
    const missing = await raw(door.url, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', ...bearer(tokens.watcher) },
      body: envelope('murmur.StopSession', {}),
    });
    assertRpcError(missing, -32009, 'no version');
  });

  test('steps 6 and 7 come before step 11 too', async () => {
    const broken = await raw(door.url, {
      method: 'POST',
      path: '/',
      headers: { ...RPC_HEADERS, ...bearer(tokens.watcher) },
      body: '{"jsonrpc":"2.0","method":"SendMessage"',
    });
    const parse = assertRpcError(broken, -32700, 'not JSON');
    assert.equal(broken.json.id, null);
    assert.equal(parse.message, 'Invalid JSON payload');
    const notRpc = await raw(door.url, {
      method: 'POST',
      path: '/',
      headers: { ...RPC_HEADERS, ...bearer(tokens.watcher) },
      body: JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'SendMessage' }),
    });
    assertRpcError(notRpc, -32600, 'not JSON-RPC 2.0');
  });

  test('an unknown method with a token that has no scope for it: -32601 (step 10 before step 11)', async () => {
    for (const method of ['NoSuchMethod', 'message/send', 'tasks/get', 'sendmessage', ' SendMessage', 'resources/files']) {
      assertRpcError(await as(door.url, tokens.watcher, method, {}), -32601, method);
    }
  });

  test('the four push config methods: -32003 to every valid token, before any scope or params check', async () => {
    for (const credential of ['operator', 'watcher', 'submitter']) {
      for (const method of PUSH_CONFIG_METHODS) {
        for (const params of [{}, 'not an object', undefined]) {
          const error = assertRpcError(await as(door.url, tokens[credential], method, params), -32003, `${credential} ${method} ${JSON.stringify(params)}`);
          assert.equal(error.message, 'push notifications are not supported by this agent');
          assert.deepEqual(error.data, [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: {} },
          ]);
        }
      }
    }
  });

  test('params that is not an object with a token lacking the scope: 403 (step 11 before step 12)', async () => {
    for (const params of [[1, 2], 'text', 5, null]) {
      assertInsufficientScope(
        await as(door.url, tokens.watcher, 'SendMessage', params),
        REALM,
        'watcher',
        'SendMessage',
        `SendMessage ${JSON.stringify(params)}`,
      );
      assertInsufficientScope(
        await as(door.url, tokens.watcher, 'murmur.StopSession', params),
        REALM,
        'watcher',
        'murmur.StopSession',
        `StopSession ${JSON.stringify(params)}`,
      );
    }
    // And with the scope, the same params reach step 12.
    assertRpcError(await as(door.url, tokens.watcher, 'ListTasks', [1, 2]), -32602, 'watcher ListTasks [1,2]');
  });

  test('a tenant with a token lacking the scope: 403 (step 11 before step 13)', async () => {
    assertInsufficientScope(await as(door.url, tokens.watcher, 'CancelTask', { id: 'tsk_x', tenant: 'acme' }), REALM, 'watcher', 'CancelTask', 'tenant');
    assertRpcError(await as(door.url, tokens.submitter, 'CancelTask', { id: 'tsk_x', tenant: 'acme' }), -32602, 'tenant with the scope');
  });
});
