import assert from 'node:assert/strict';
import test from 'node:test';
import { checkTenant, failure, isPlainObject, type JsonObject, readEnvelope, readParams, success, successHead } from '../src/index.js';
import type { JsonRpcRequest } from '../src/types.js';

// Seed "The JSON-RPC door": step 7 (the envelope), step 12 (params) and step 13 (tenant); "Tenants".

const INVALID_REQUEST = { code: -32600, message: 'Request payload validation error' };

test('a JSON-RPC 2.0 request with a string or integer id is read', () => {
  assert.deepEqual(readEnvelope({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'tsk_1' } }), {
    ok: true,
    request: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'tsk_1' } },
  });
  assert.deepEqual(readEnvelope({ jsonrpc: '2.0', id: 'sub-1', method: 'SubscribeToTask' }), {
    ok: true,
    request: { jsonrpc: '2.0', id: 'sub-1', method: 'SubscribeToTask' },
  });
  assert.deepEqual(readEnvelope({ jsonrpc: '2.0', id: '', method: 'x' }), { ok: true, request: { jsonrpc: '2.0', id: '', method: 'x' } });
  assert.deepEqual(readEnvelope({ jsonrpc: '2.0', id: 0, method: 'x' }), { ok: true, request: { jsonrpc: '2.0', id: 0, method: 'x' } });
  assert.deepEqual(readEnvelope({ jsonrpc: '2.0', id: -7, method: 'x' }), { ok: true, request: { jsonrpc: '2.0', id: -7, method: 'x' } });
});

test('members beyond the four are ignored', () => {
  const verdict = readEnvelope({ jsonrpc: '2.0', id: 1, method: 'GetTask', extra: true, result: 1 });
  assert.deepEqual(verdict, { ok: true, request: { jsonrpc: '2.0', id: 1, method: 'GetTask' } });
});

test("the method is kept exactly: case and whitespace are the method matcher's business", () => {
  const verdict = readEnvelope({ jsonrpc: '2.0', id: 1, method: ' getTask ' });
  assert.equal(verdict.ok && verdict.request.method, ' getTask ');
});

test('params is not judged by the envelope (step 12 comes later)', () => {
  const verdict = readEnvelope({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: [1, 2] });
  assert.equal(verdict.ok, true);
  assert.deepEqual(verdict.ok && verdict.request.params, [1, 2]);
});

const refusals: [string, unknown, string | number | null][] = [
  ['a batch array', [{ jsonrpc: '2.0', id: 1, method: 'GetTask' }], null],
  ['an empty batch', [], null],
  ['null', null, null],
  ['a string', 'GetTask', null],
  ['a number', 1, null],
  ['no jsonrpc', { id: 1, method: 'GetTask' }, 1],
  ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'GetTask' }, 1],
  ['jsonrpc 2.0 as a number', { jsonrpc: 2.0, id: 'a', method: 'GetTask' }, 'a'],
  ['jsonrpc "2.0 "', { jsonrpc: '2.0 ', id: 1, method: 'GetTask' }, 1],
  ['no method', { jsonrpc: '2.0', id: 'a' }, 'a'],
  ['a method that is not a string', { jsonrpc: '2.0', id: 5, method: 5 }, 5],
  ['a notification (no id)', { jsonrpc: '2.0', method: 'GetTask' }, null],
  ['an id of null', { jsonrpc: '2.0', id: null, method: 'GetTask' }, null],
  ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'GetTask' }, null],
  ['an object id', { jsonrpc: '2.0', id: { n: 1 }, method: 'GetTask' }, null],
  ['a boolean id', { jsonrpc: '2.0', id: true, method: 'GetTask' }, null],
  ['an array id', { jsonrpc: '2.0', id: [1], method: 'GetTask' }, null],
  ['an invalid id and no method', { jsonrpc: '2.0', id: 1.5 }, null],
];
for (const [what, body, id] of refusals) {
  test(`step 7: ${what} is refused -32600, id ${JSON.stringify(id)}`, () => {
    assert.deepEqual(readEnvelope(body), { ok: false, id, error: INVALID_REQUEST });
  });
}

test('a -32600 refusal carries no data', () => {
  const verdict = readEnvelope({});
  assert.equal(verdict.ok, false);
  assert.equal(!verdict.ok && 'data' in verdict.error, false);
});

const request = (params?: unknown): JsonRpcRequest => {
  const r: JsonRpcRequest = { jsonrpc: '2.0', id: 1, method: 'ListTasks' };
  if (params !== undefined) r.params = params as JsonObject;
  return r;
};

test('step 12: omitted params read as {}', () => {
  assert.deepEqual(readParams(request()), { ok: true, params: {} });
});

test('step 12: an object params is read as is', () => {
  assert.deepEqual(readParams(request({ pageSize: 2 })), { ok: true, params: { pageSize: 2 } });
  assert.deepEqual(readParams(request({})), { ok: true, params: {} });
});

for (const params of [null, [], [{}], 'x', 0, true]) {
  test(`step 12: params ${JSON.stringify(params)} is refused -32602`, () => {
    const r: JsonRpcRequest = { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: params as unknown as JsonObject };
    assert.deepEqual(readParams(r), { ok: false, error: { code: -32602, message: 'Invalid params: params must be an object' } });
  });
}

test('step 13: no tenant, or tenant "", is served as if absent', () => {
  assert.equal(checkTenant({}), null);
  assert.equal(checkTenant({ tenant: '' }), null);
  assert.equal(checkTenant({ id: 'tsk_1', tenant: '' }), null);
});

test('step 13: tenant "acme" is refused with the seed message', () => {
  assert.deepEqual(checkTenant({ tenant: 'acme' }), {
    code: -32602,
    message: 'Invalid params: tenant "acme" names a tenant; this agent serves no tenants, so omit tenant',
  });
});

test('step 13: the value is shown as JSON, so "tenant": 7 reads tenant 7', () => {
  assert.deepEqual(checkTenant({ tenant: 7 }), {
    code: -32602,
    message: 'Invalid params: tenant 7 names a tenant; this agent serves no tenants, so omit tenant',
  });
});

test('step 13: every other tenant value is refused, shown as JSON', () => {
  const cases: [JsonObject['tenant'], string][] = [
    [null, 'null'],
    [false, 'false'],
    [' ', '" "'],
    ['a"b', '"a\\"b"'],
    [{}, '{}'],
    [['acme'], '["acme"]'],
    [0, '0'],
  ];
  for (const [tenant, shown] of cases) {
    const error = checkTenant({ tenant });
    assert.deepEqual(error, {
      code: -32602,
      message: `Invalid params: tenant ${shown} names a tenant; this agent serves no tenants, so omit tenant`,
    });
  }
});

test('success and failure build JSON-RPC 2.0 envelopes', () => {
  assert.deepEqual(success(1, { task: 1 }), { jsonrpc: '2.0', id: 1, result: { task: 1 } });
  assert.deepEqual(success('a', null), { jsonrpc: '2.0', id: 'a', result: null });
  assert.deepEqual(failure(null, { code: -32700, message: 'Invalid JSON payload' }), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32700, message: 'Invalid JSON payload' },
  });
});

test('successHead frames a serialized result as JSON.stringify(success(id, result)) writes it, for every id type', () => {
  const result = { task: { id: 't', note: 'a "quoted" \u2028 text' } };
  for (const id of [7, 'req-"1"', null, -0.5]) assert.equal(`${successHead(id)}${JSON.stringify(result)}}`, JSON.stringify(success(id, result)));
});

test('isPlainObject: objects only, not arrays or null', () => {
  assert.equal(isPlainObject({}), true);
  assert.equal(isPlainObject({ a: 1 }), true);
  assert.equal(isPlainObject([]), false);
  assert.equal(isPlainObject(null), false);
  assert.equal(isPlainObject('x'), false);
  assert.equal(isPlainObject(1), false);
  assert.equal(isPlainObject(undefined), false);
});
