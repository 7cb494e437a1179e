import assert from 'node:assert/strict';
import test from 'node:test';
import { rpcError } from '@murmur/protocol';
import { A2AError, ConnectionError, HttpRefusalError, InvalidResponseError } from '../src/index.js';
import { backoffDelay, RETRY_AFTER_CAP_MS, retryAfterMs, retryDelay, shouldRetry, sleep } from '../src/internal/retry.js';

const policy = { initialDelayMs: 500, maxDelayMs: 15_000 };

test('back-off doubles from initialDelayMs and stops at maxDelayMs', () => {
  const noJitter = () => 0;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 10].map((n) => backoffDelay(n, policy, noJitter)),
    [500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000],
  );
});

test('jitter takes off at most 25 %, never adds', () => {
  assert.equal(
    backoffDelay(3, policy, () => 0.999_999),
    1500,
  );
  for (let i = 0; i < 200; i++) {
    const d = backoffDelay(4, policy);
    assert.ok(d >= 3000 && d <= 4000, String(d));
  }
});

test('Retry-After: seconds or an HTTP date, honoured up to the cap', () => {
  const now = Date.parse('2026-11-29T15:00:00Z');
  assert.equal(retryAfterMs(null), null);
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs(' 0 '), 0);
  assert.equal(retryAfterMs('Sun, 29 Nov 2026 15:00:10 GMT', now), 10_000);
  assert.equal(retryAfterMs('soon'), null);
  assert.equal(retryAfterMs(String(RETRY_AFTER_CAP_MS / 1000 + 1)), null);
  assert.equal(retryAfterMs('-1'), null);
  const busy = new HttpRefusalError({ status: 503, wwwAuthenticate: null, code: null, message: 'busy', retryAfter: '2' });
  assert.equal(retryDelay(1, policy, busy), 2000);
  assert.equal(
    retryDelay(1, policy, new ConnectionError('reset'), () => 0),
    500,
  );
});

test('one retry predicate: the table column for A2A errors, HTTP status, idempotency for the rest', () => {
  const http = (status: number) => new HttpRefusalError({ status, wwwAuthenticate: null, code: null, message: '' });
  assert.equal(shouldRetry(A2AError.from(rpcError('InternalError', 'x')), false), true);
  assert.equal(shouldRetry(A2AError.from(rpcError('TaskNotFound')), true), false);
  assert.equal(shouldRetry(A2AError.from(rpcError('InvalidParams', 'x')), true), false);
  for (const status of [429, 503]) {
    assert.equal(shouldRetry(http(status), false), true, String(status));
  }
  for (const status of [408, 500, 502, 504]) {
    assert.equal(shouldRetry(http(status), true), true, String(status));
    assert.equal(shouldRetry(http(status), false), false, `a SendMessage is not repeated after ${status}`);
  }
  for (const status of [401, 403, 404]) assert.equal(shouldRetry(http(status), true), false, String(status));
  assert.equal(shouldRetry(new ConnectionError('reset'), true), true);
  assert.equal(shouldRetry(new ConnectionError('reset'), false), false);
  assert.equal(shouldRetry(new InvalidResponseError('not-json', 'x'), true), false);
  assert.equal(shouldRetry(new Error('boom'), true), false);
});

test('sleep rejects with the signal’s reason when aborted', async () => {
  const controller = new AbortController();
  const pending = sleep(10_000, controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(pending, /stop/);
  await assert.rejects(sleep(1, controller.signal), /stop/);
  await sleep(1);
});
