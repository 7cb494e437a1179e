import type { JsonValue, MemberCallStatus } from '@murmur/protocol';
import type { TraceRecord } from './trace-reader.js';

/** One member call as a caller's trace records it (docs/console.md, "Formations"). */
export interface TracedMemberCall {
  callId: string;
  callerTaskId: string;
  member: string;
  memberTaskId: string | null;
  toolCallId: string | null;
  status: MemberCallStatus;
  ended: boolean;
  offers: number;
  /** The call's start: member_call's time minus elapsed_ms once ended, else its tool call's start or first record. */
  startedMs: number;
  endedMs: number | null;
  elapsedMs: number | null;
}

const ENDED: readonly MemberCallStatus[] = ['completed', 'rejected', 'failed', 'no_answer', 'timed_out', 'unreachable', 'abandoned'];
const CALL_ID_IN_OUTPUT = /"call_id":"(mcl_[0-9a-f]+)"/;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function memberOf(input: unknown): string | null {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? str((input as Record<string, JsonValue>).member) : null;
}

/**
 * The member calls in one task's trace records (written in order), each linked to the `call-member` tool call that
 * made it: by the `call_id` in the tool's output (the runtime's own data), else — traces without outputs — the first
 * call to that member first recorded since the previous tool call, since a turn's tool calls run one at a time and a
 * call's first record is written while its tool call runs.
 */
export function memberCallsOf(taskId: string, records: readonly TraceRecord[]): TracedMemberCall[] {
  const calls = new Map<string, TracedMemberCall>();
  let firstSeenSinceTool: string[] = [];
  for (const record of records) {
    const ms = Date.parse(record.ts);
    if (Number.isNaN(ms)) continue;
    if (record.type === 'member_call_busy' || record.type === 'member_call_start' || record.type === 'member_call') {
      const callId = str(record.call_id);
      const member = str(record.member);
      if (callId === null || member === null) continue;
      let call = calls.get(callId);
      if (!call) {
        call = { callId, callerTaskId: taskId, member, memberTaskId: null, toolCallId: null, status: 'offering', ended: false, offers: 1, startedMs: ms, endedMs: null, elapsedMs: null };
        calls.set(callId, call);
        firstSeenSinceTool.push(callId);
      }
      const offers = num(record.offers) ?? num(record.offer);
      if (offers !== null) call.offers = Math.max(call.offers, offers);
      call.memberTaskId = str(record.member_task_id) ?? call.memberTaskId;
      if (record.type === 'member_call_start' && !call.ended) call.status = 'running';
      if (record.type === 'member_call') {
        const status = str(record.status);
        call.status = status !== null && (ENDED as readonly string[]).includes(status) ? (status as MemberCallStatus) : 'failed';
        call.ended = true;
        call.endedMs = ms;
        call.elapsedMs = num(record.elapsed_ms);
        if (call.elapsedMs !== null) call.startedMs = ms - call.elapsedMs;
      }
      continue;
    }
    if (record.type === 'inference') firstSeenSinceTool = [];
    if (record.type !== 'tool_call') continue;
    const seen = firstSeenSinceTool;
    firstSeenSinceTool = [];
    if (record.tool !== 'call-member') continue;
    const toolCallId = str(record.tool_call_id);
    const fromOutput = CALL_ID_IN_OUTPUT.exec(str(record.output) ?? '')?.[1];
    const member = memberOf(record.input);
    const callId = fromOutput && calls.has(fromOutput) ? fromOutput : seen.find((id) => calls.get(id)?.member === member);
    const call = callId === undefined ? undefined : calls.get(callId);
    if (!call || toolCallId === null) continue;
    call.toolCallId = toolCallId;
    // A call in flight started with its tool call (the record is written when the tool returns).
    const durationMs = num(record.duration_ms);
    if (!call.ended && durationMs !== null) call.startedMs = Math.min(call.startedMs, ms - durationMs);
  }
  return [...calls.values()];
}
