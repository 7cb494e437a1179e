import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProviderFailure } from './provider-failure.js';
import { parseToolArguments } from './tool-arguments.js';

test('a tool call’s arguments: a JSON object, "" as {}; not an object, or nested past 64 levels, a failure naming the call', () => {
  assert.deepEqual(parseToolArguments('call_1', 'bash', ''), {});
  assert.deepEqual(parseToolArguments('call_1', 'bash', '{"a":[[{"b":1}]]}'), { a: [[{ b: 1 }]] });
  assert.throws(() => parseToolArguments('call_2', 'bash', '[]'), { message: 'tool call call_2 (bash): its arguments are not a JSON object' });
  // What a model could write to make the door's own recording of the call fail: 10,000 levels, past JSON.stringify's.
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  assert.throws(
    () => parseToolArguments('call_3', 'bash', deep),
    (error: unknown) => error instanceof ProviderFailure && error.message === 'tool call call_3 (bash): its arguments nest deeper than 64 levels',
  );
  const levels = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  assert.equal(typeof parseToolArguments('call_4', 'bash', levels(64)), 'object', '64 levels, the arguments object the first, are read');
  assert.throws(() => parseToolArguments('call_5', 'bash', levels(65)), /nest deeper than 64 levels/);
});
