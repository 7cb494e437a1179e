/**
 * Held requests are bounded by bytes (issue 16; docs/decisions.md, "Held requests are bounded by bytes"). The door
 * under the budget is held-budget.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HELD_REQUEST_BYTES, HELD_REQUEST_MIN_BYTES, HeldRequests, requestBytes } from './held-requests.js';

test('are counted by bytes, at least 16 KiB each; past the budget none is taken until one is released', () => {
  const held = new HeldRequests(100_000);
  const first = held.take(60_000);
  assert.ok(first);
  assert.equal(held.take(50_000), null);
  const small = held.take(1);
  assert.ok(small);
  assert.equal(held.heldBytes, 60_000 + HELD_REQUEST_MIN_BYTES);
  first();
  first();
  assert.equal(held.heldBytes, HELD_REQUEST_MIN_BYTES);
  assert.equal(requestBytes({ 'content-length': '1234' }, 5), 1234);
  assert.equal(requestBytes({}, 5), 10);
});

test('the door-wide budget is the documented 32 MiB', () => {
  assert.equal(HELD_REQUEST_BYTES, 32 * 1024 * 1024);
});
