import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTraceLine } from '../records/trace-lines.js';
import type { TraceLine, TraceType } from '../records/trace-schema.js';
import { delegationsOf } from './delegation-records.js';

const ts = (ms: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, 0, ms)).toISOString();
const BASE: Partial<Record<TraceType, Record<string, unknown>>> = { tool_call: { status: 'passed', exit_code: null, duration_ms: 30 } };
/** A record as the reader gets it: written as a line of trace.jsonl and decoded against the schema. */
function rec(ms: number, type: TraceType, fields: Record<string, unknown> = {}): TraceLine {
  const line = decodeTraceLine(JSON.stringify({ ts: ts(ms), type, task_id: 'tsk_l', ...BASE[type], ...fields }));
  assert.ok(typeof line !== 'string', `the ${type} fixture is off the schema (${line})`);
  return line;
}
const start = (ms: number, id: string) =>
  rec(ms, 'delegation_start', {
    delegation_id: id,
    capsule: 'researcher',
    child_session_id: 'ses_c',
    child_task_id: 'tsk_c',
    child_workdir: '/r/children/researcher-0',
  });
const toolCall = (ms: number, id: string, callId: string) =>
  rec(ms, 'tool_call', {
    tool: 'delegate-task',
    tool_call_id: callId,
    input: { capsule: 'researcher', task: 't' },
    output: `<untrusted-content source=tool:delegate-task>\n{"delegation_id":"${id}","capsule":"researcher","status":"running"}\n</untrusted-content>`,
  });

test('a delegation: running from its start, linked to the delegate-task call naming it, then ended with its status', () => {
  const records = [start(100, 'dlg_01aa'), toolCall(110, 'dlg_01aa', 'call_d')];
  assert.deepEqual(delegationsOf('tsk_l', records), [
    {
      delegationId: 'dlg_01aa',
      taskId: 'tsk_l',
      capsule: 'researcher',
      childSessionId: 'ses_c',
      childTaskId: 'tsk_c',
      toolCallId: 'call_d',
      status: 'running',
      ended: false,
      startedMs: Date.parse(ts(100)),
      endedMs: null,
    },
  ]);
  const [ended] = delegationsOf('tsk_l', [
    ...records,
    rec(2100, 'delegation', { delegation_id: 'dlg_01aa', capsule: 'researcher', status: 'timed_out', child_session_id: 'ses_c' }),
  ]);
  assert.equal(ended.status, 'timed_out');
  assert.equal(ended.ended, true);
  assert.equal(ended.endedMs, Date.parse(ts(2100)));
});

test('two delegations are told apart by the id in each tool output; an end without a start and a tool call naming none are skipped', () => {
  const records = [
    rec(5, 'delegation', { delegation_id: 'dlg_0000', capsule: 'researcher', status: 'lost', child_session_id: 'ses_c' }),
    start(10, 'dlg_01aa'),
    start(20, 'dlg_01bb'),
    toolCall(30, 'dlg_01bb', 'call_2'),
    toolCall(31, 'dlg_01aa', 'call_1'),
    rec(40, 'tool_call', { tool: 'delegate-task', tool_call_id: 'call_3', input: {}, output: 'researcher could not be started, so nothing was delegated: no' }),
  ];
  const found = delegationsOf('tsk_l', records);
  assert.deepEqual(
    found.map((d) => [d.delegationId, d.toolCallId, d.status]),
    [
      ['dlg_01aa', 'call_1', 'running'],
      ['dlg_01bb', 'call_2', 'running'],
    ],
  );
});
