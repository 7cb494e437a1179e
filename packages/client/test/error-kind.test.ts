import assert from 'node:assert/strict';
import test from 'node:test';
import { A2AError, ConnectionError, ERROR_KINDS, errorKind, HttpRefusalError, InvalidResponseError, StreamError, TaskNotFoundError } from '../src/index.js';

test('every thrown value has one stable kind', () => {
  const abort = new AbortController();
  abort.abort();
  const cases: [unknown, string][] = [
    [new TaskNotFoundError({ code: -32001, message: 'Task not found' }), 'a2a'],
    [new A2AError({ code: -1, message: 'odd' }), 'a2a'],
    [new HttpRefusalError({ status: 401, wwwAuthenticate: null, code: 'unauthenticated', message: 'm' }), 'http-refusal'],
    [new ConnectionError('down'), 'connection'],
    [new InvalidResponseError('not-json', 'x'), 'invalid-response'],
    [new StreamError('retries-exhausted', 'x', { method: 'murmur.WatchSession' }), 'stream'],
    [abort.signal.reason, 'aborted'],
    [new DOMException('late', 'TimeoutError'), 'timeout'],
    [new Error('plain'), 'unknown'],
    ['a string', 'unknown'],
    [null, 'unknown'],
    [undefined, 'unknown'],
  ];
  for (const [value, kind] of cases) assert.equal(errorKind(value), kind, String(value));
  assert.deepEqual(new Set(cases.map(([, kind]) => kind)), new Set(ERROR_KINDS));
});

test('the kind reads the brand, not the prototype: a copy from another bundle counts', () => {
  const original = new ConnectionError('down');
  const copy = Object.assign(Object.create(null), original, { [Symbol.for('@murmur/client.error')]: 'ConnectionError' });
  assert.equal(errorKind(copy), 'connection');
});
