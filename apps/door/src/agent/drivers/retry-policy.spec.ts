/** The drivers' one retry policy (docs/drivers.md, "The retry policy"): the predicate, back-off with jitter, capped Retry-After. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProviderFailure, providerMessage } from './provider-failure.js';
import { RETRY_AFTER_CAP_MS, retryDelayMs, shouldRetry } from './retry-policy.js';

const http = (status: number, headers: Record<string, string> = {}) =>
  new ProviderFailure('http', `HTTP ${status}: x`, { status, headers: new Headers(headers) });

test('shouldRetry: 408, 409, 429 and 5xx, connection failures, stalls and early closes; never 4xx otherwise or malformed streams', () => {
  for (const status of [408, 409, 429, 500, 502, 503, 529]) assert.equal(shouldRetry(http(status)), true, String(status));
  for (const status of [400, 401, 403, 404, 413, 422]) assert.equal(shouldRetry(http(status)), false, String(status));
  for (const kind of ['connect', 'stall', 'closed'] as const) assert.equal(shouldRetry(new ProviderFailure(kind, kind)), true);
  for (const kind of ['malformed', 'arguments'] as const) assert.equal(shouldRetry(new ProviderFailure(kind, kind)), false);
  for (const type of ['overloaded_error', 'api_error', 'server_error'])
    assert.equal(shouldRetry(new ProviderFailure('stream-error', 'x', { errorType: type })), true, type);
  assert.equal(shouldRetry(new ProviderFailure('stream-error', 'x', { errorType: 'invalid_request_error' })), false);
  assert.equal(shouldRetry(http(500, { 'x-should-retry': 'false' })), false, 'the provider’s header decides');
  assert.equal(shouldRetry(http(400, { 'x-should-retry': 'true' })), true);
});

test('retryDelayMs: Retry-After in seconds, as a date, or retry-after-ms, up to the cap; beyond it the back-off', () => {
  const now = Date.parse('2026-12-01T00:00:00Z');
  assert.equal(
    retryDelayMs(1, http(429, { 'retry-after': '2' }), () => 0, now),
    2000,
  );
  assert.equal(
    retryDelayMs(1, http(429, { 'retry-after-ms': '150' }), () => 0, now),
    150,
  );
  assert.equal(
    retryDelayMs(1, http(429, { 'retry-after': 'Tue, 01 Dec 2026 00:00:03 GMT' }), () => 0, now),
    3000,
  );
  assert.equal(
    retryDelayMs(1, http(429, { 'retry-after': String(RETRY_AFTER_CAP_MS / 1000 + 1) }), () => 0, now),
    500,
    'over the cap: back-off',
  );
  assert.equal(
    retryDelayMs(1, http(429, { 'retry-after': 'soon' }), () => 0, now),
    500,
  );
});

test('retryDelayMs: exponential from 0.5 s to 8 s, less up to 25 % jitter', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, http(500), () => 0)),
    [500, 1000, 2000, 4000, 8000, 8000, 8000],
  );
  assert.equal(
    retryDelayMs(1, http(500), () => 1),
    375,
  );
  assert.equal(
    retryDelayMs(5, http(500), () => 0.5),
    7000,
  );
});

test('providerMessage: the provider’s own message from either error shape, the key redacted, cut at 500 characters', () => {
  assert.deepEqual(providerMessage('{"error":{"message":"bad key sk-123","type":"invalid_request_error"}}', 'sk-123'), {
    message: 'bad key [redacted]',
    errorType: 'invalid_request_error',
  });
  assert.deepEqual(providerMessage('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', null), {
    message: 'Overloaded',
    errorType: 'overloaded_error',
  });
  assert.equal(providerMessage('<html>bad gateway</html>', null).message, '<html>bad gateway</html>');
  assert.equal(providerMessage('x'.repeat(900), null).message.length, 501);
});
