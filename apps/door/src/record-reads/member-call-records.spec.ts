import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberCallsOf } from './member-call-records.js';
import { decodeTraceLine } from '../records/trace-lines.js';
import type { TraceLine, TraceType } from '../records/trace-schema.js';

const ts = (ms: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, 0, ms)).toISOString();
/** The fields these tests do not vary, so each fixture is a whole record of its type. */
const BASE: Partial<Record<TraceType, Record<string, unknown>>> = {
  inference: { driver: 'script', stop_reason: 'tool_use', usage: 'unreported', tool_calls: 1, duration_ms: 1, first_token_ms: null },
  tool_call: { status: 'passed', exit_code: null },
  member_call: { delivered: true },
};
/** A record as the reader gets it: written as a line of trace.jsonl and decoded against the schema. */
function rec(ms: number, type: TraceType, fields: Record<string, unknown> = {}): TraceLine {
  const line = decodeTraceLine(JSON.stringify({ ts: ts(ms), type, task_id: 'tsk_c', ...BASE[type], ...fields }));
  assert.ok(typeof line !== 'string', `the ${type} fixture is off the schema (${line})`);
  return line;
}
const output = (callId: string) =>
  `<untrusted-content source=tool:call-member>\n{"call_id":"${callId}","member":"w","status":"started"}\n</untrusted-content>\n[call-member] …`;

test('a call taken at once: running, linked to its tool call by the call_id in its output, then ended with its elapsed time', () => {
  const records = [
    rec(0, 'inference', { turn: 1 }),
    rec(40, 'member_call_start', { call_id: 'mcl_a', member: 'worker', member_task_id: 'tsk_w', offers: 1 }),
    rec(41, 'tool_call', { tool: 'call-member', tool_call_id: 'call_1', duration_ms: 35, input: { member: 'worker' }, output: output('mcl_a') }),
  ];
  const [inFlight] = memberCallsOf('tsk_c', records);
  assert.deepEqual(inFlight, {
    callId: 'mcl_a',
    callerTaskId: 'tsk_c',
    member: 'worker',
    memberTaskId: 'tsk_w',
    toolCallId: 'call_1',
    status: 'running',
    ended: false,
    offers: 1,
    startedMs: Date.parse(ts(6)),
    endedMs: null,
    elapsedMs: null,
  });
  const [ended] = memberCallsOf('tsk_c', [
    ...records,
    rec(3040, 'member_call', { call_id: 'mcl_a', member: 'worker', status: 'completed', member_task_id: 'tsk_w', offers: 1, elapsed_ms: 3030 }),
  ]);
  assert.equal(ended.status, 'completed');
  assert.equal(ended.ended, true);
  assert.equal(ended.elapsedMs, 3030);
  assert.equal(ended.startedMs, Date.parse(ts(10)));
  assert.equal(ended.endedMs, Date.parse(ts(3040)));
});

test('a busy member: offering, offers counted, then running once taken; the re-offers after later tool calls do not relink them', () => {
  const records = [
    rec(10, 'member_call_busy', { call_id: 'mcl_b', member: 'slow', offer: 1 }),
    rec(11, 'tool_call', { tool: 'call-member', tool_call_id: 'call_1', duration_ms: 5, input: { member: 'slow' }, output: '[call-member] offered' }),
    rec(12, 'member_call_start', { call_id: 'mcl_x', member: 'worker', member_task_id: 'tsk_x', offers: 1 }),
    rec(1020, 'member_call_busy', { call_id: 'mcl_b', member: 'slow', offer: 2 }),
    rec(1021, 'tool_call', { tool: 'call-member', tool_call_id: 'call_2', duration_ms: 9, input: { member: 'worker' }, output: '[call-member] offered' }),
  ];
  const calls = new Map(memberCallsOf('tsk_c', records).map((c) => [c.callId, c]));
  assert.equal(calls.get('mcl_b')?.status, 'offering');
  assert.equal(calls.get('mcl_b')?.offers, 2);
  assert.equal(calls.get('mcl_b')?.toolCallId, 'call_1', 'linked by order: the first call to slow first recorded during call_1');
  assert.equal(calls.get('mcl_x')?.toolCallId, 'call_2', 'linked by order and member, not to the re-offered mcl_b');
  const taken = memberCallsOf('tsk_c', [
    ...records,
    rec(3000, 'member_call_start', { call_id: 'mcl_b', member: 'slow', member_task_id: 'tsk_s', offers: 3 }),
  ]).find((c) => c.callId === 'mcl_b');
  assert.equal(taken?.status, 'running');
  assert.equal(taken?.offers, 3);
  assert.equal(taken?.memberTaskId, 'tsk_s');
});

test('a call refused at once ends in its tool call; a refused call-member (no call) links nothing', () => {
  const records = [
    rec(5, 'member_call', { call_id: 'mcl_r', member: 'worker', status: 'rejected', member_task_id: null, offers: 1, elapsed_ms: 4 }),
    rec(6, 'tool_call', { tool: 'call-member', tool_call_id: 'call_1', duration_ms: 5, input: { member: 'worker' }, output: output('mcl_r') }),
    rec(7, 'tool_call', {
      tool: 'call-member',
      tool_call_id: 'call_2',
      duration_ms: 1,
      status: 'error',
      input: { member: 'nobody' },
      output: "'nobody' is not a member",
    }),
    rec(8, 'member_call', { call_id: 'mcl_q', member: 'worker', status: 'canceled', member_task_id: null, offers: 1, elapsed_ms: 1 }),
  ];
  const [refused, odd] = memberCallsOf('tsk_c', records);
  assert.equal(refused.status, 'rejected');
  assert.equal(refused.toolCallId, 'call_1');
  assert.equal(refused.memberTaskId, null);
  assert.equal(odd.status, 'failed', 'a status the console does not show (canceled) reads failed');
  assert.equal(odd.toolCallId, null);
});
