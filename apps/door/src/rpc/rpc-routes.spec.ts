/** The body limit (issue 16; docs/reliability.md): the whole door under it is memory-ceiling.test.ts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyLimitFor } from './rpc-routes.js';

test('the body limit fits base64 images at their limits plus 1 MiB, and is 8 MiB at least', () => {
  assert.equal(bodyLimitFor(100, 1), 8 * 1024 * 1024);
  assert.equal(bodyLimitFor(5 * 1024 * 1024, 4), Math.ceil((20 * 1024 * 1024 * 4) / 3) + 1024 * 1024);
});
