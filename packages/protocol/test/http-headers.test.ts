import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerLines, taskOrigins } from '../src/index.js';

test('headerLines keeps every line of a header, in order, matching the name in any case', () => {
  const raw = ['Authorization', 'Bearer a', 'x-other', '1', 'authorization', 'Bearer b'];
  assert.deepEqual(headerLines(raw, 'authorization'), ['Bearer a', 'Bearer b']);
  assert.deepEqual(headerLines(raw, 'AUTHORIZATION'), ['Bearer a', 'Bearer b']);
  assert.deepEqual(headerLines(raw, 'a2a-version'), []);
});

test('taskOrigins reads repeated lines and comma-separated values the same', () => {
  assert.deepEqual(taskOrigins(['x-murmur-task-origin', 'completion, a2a']), ['completion', 'a2a']);
  assert.deepEqual(taskOrigins(['X-Murmur-Task-Origin', 'completion', 'x-murmur-task-origin', 'A2A']), ['completion', 'a2a']);
  assert.deepEqual(taskOrigins(['x-murmur-task-origin', ' Peer , peer ']), ['peer', 'peer']);
  assert.deepEqual(taskOrigins(['x-murmur-task-origin', ' , ']), []);
  assert.deepEqual(taskOrigins([]), []);
});
