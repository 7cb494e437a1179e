import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTraceType, TRACE_TYPES, type TraceFields, type TraceLine } from './trace-schema.js';
import { unhandledRecord } from './unhandled-record.js';

/**
 * The schema's promises to the compiler: these lines are type errors, each marked so; were one to compile (a writer
 * that took any field, a reader that could read a field its type does not have), tsc fails this file.
 */
export function typeChecks(line: TraceLine): void {
  // @ts-expect-error a record type the schema does not have
  const unknownType: keyof TraceFields = 'task_from_the_future';
  const renamed: TraceFields['inference'] = {
    task_id: 't',
    turn: 1,
    driver: 'd',
    stop_reason: 's',
    usage: 'unreported',
    tool_calls: 0,
    duration_ms: 1,
    // @ts-expect-error a field the inference record does not have (a renamed first_token_ms)
    first_token: null,
  };
  // @ts-expect-error a field the record must carry, left out
  const missing: TraceFields['task_result'] = { task_id: 't' };
  if (line.type === 'tool_call') {
    // @ts-expect-error a field of another record type, read from this one
    void line.first_token_ms;
  }
  void [unknownType, renamed, missing];
}

test("isTraceType names the schema's own types only", () => {
  assert.equal(TRACE_TYPES.length, new Set(TRACE_TYPES).size);
  for (const type of TRACE_TYPES) assert.equal(isTraceType(type), true);
  for (const type of ['constructor', 'toString', '', 'task-start', 7, null]) assert.equal(isTraceType(type), false);
});

test('unhandledRecord throws, naming the record', () => {
  assert.throws(() => unhandledRecord({ type: 'x' } as never), /unhandled trace record \{"type":"x"\}/);
});
