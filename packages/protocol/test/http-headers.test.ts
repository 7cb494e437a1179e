import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readRequestHeaders, taskOrigins } from '../src/index.js';

test('one pass keeps every line of each header a door reads, in order, matching the name in any case', () => {
  const raw = [
    'Authorization',
    'Bearer a',
    'content-type',
    'application/json',
    'AUTHORIZATION',
    'Bearer b',
    'A2A-Version',
    '1.0',
    'Traceparent',
    'tp',
    'x-other',
    'ignored',
  ];
  const lines = readRequestHeaders(raw);
  assert.deepEqual(lines.authorization, ['Bearer a', 'Bearer b']);
  assert.deepEqual(lines.a2aVersion, ['1.0']);
  assert.deepEqual(lines.traceparent, ['tp']);
  assert.deepEqual(lines.a2aExtensions, []);
  assert.deepEqual(lines.lastEventId, []);
  assert.deepEqual(readRequestHeaders(['constructor', 'x', '__proto__', 'y', 'toString', 'z']).authorization, [], 'no name reaches an object prototype');
});

test('taskOrigins reads repeated lines and comma-separated values the same', () => {
  const origins = (...raw: string[]) => taskOrigins(readRequestHeaders(raw));
  assert.deepEqual(origins('x-murmur-task-origin', 'completion, a2a'), ['completion', 'a2a']);
  assert.deepEqual(origins('X-Murmur-Task-Origin', 'completion', 'x-murmur-task-origin', 'A2A'), ['completion', 'a2a']);
  assert.deepEqual(origins('x-murmur-task-origin', ' Peer , peer '), ['peer', 'peer']);
  assert.deepEqual(origins('x-murmur-task-origin', ' , '), []);
  assert.deepEqual(origins(), []);
});
