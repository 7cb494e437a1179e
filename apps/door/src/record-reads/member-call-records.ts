import type { ConsoleMemberCall, MemberCallStatus } from '@murmur/protocol';
import type { TraceLine } from '../records/trace-schema.js';
import { unhandledRecord } from '../records/unhandled-record.js';

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

/** The endings the console shows; any other (a canceled call) reads `failed`. */
const ENDED: readonly MemberCallStatus[] = ['completed', 'rejected', 'failed', 'no_answer', 'timed_out', 'unreachable', 'abandoned'];
const CALL_ID_IN_OUTPUT = /"call_id":"(mcl_[0-9a-f]+)"/;

function memberOf(input: unknown): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const member = (input as Record<string, unknown>).member;
  return typeof member === 'string' ? member : null;
}

/**
 * The member calls in one task's trace records (written in order), each linked to the `call-member` tool call that
 * made it: by the `call_id` in the tool's output (the runtime's own data), else — an output without one — the first
 * call to that member first recorded since the previous tool call, since a turn's tool calls run one at a time and a
 * call's first record is written while its tool call runs.
 */
export function memberCallsOf(taskId: string, records: readonly TraceLine[]): TracedMemberCall[] {
  const calls = new Map<string, TracedMemberCall>();
  let firstSeenSinceTool: string[] = [];
  for (const record of records) {
    const ms = Date.parse(record.ts);
    if (Number.isNaN(ms)) continue;
    switch (record.type) {
      case 'member_call_busy':
      case 'member_call_start':
      case 'member_call': {
        let call = calls.get(record.call_id);
        if (!call) {
          call = {
            callId: record.call_id,
            callerTaskId: taskId,
            member: record.member,
            memberTaskId: null,
            toolCallId: null,
            status: 'offering',
            ended: false,
            offers: 1,
            startedMs: ms,
            endedMs: null,
            elapsedMs: null,
          };
          calls.set(record.call_id, call);
          firstSeenSinceTool.push(record.call_id);
        }
        call.offers = Math.max(call.offers, record.type === 'member_call_busy' ? record.offer : record.offers);
        if (record.type === 'member_call_busy') break;
        call.memberTaskId = record.member_task_id ?? call.memberTaskId;
        if (record.type === 'member_call_start') {
          if (!call.ended) call.status = 'running';
          break;
        }
        call.status = (ENDED as readonly string[]).includes(record.status) ? (record.status as MemberCallStatus) : 'failed';
        call.ended = true;
        call.endedMs = ms;
        call.elapsedMs = record.elapsed_ms;
        call.startedMs = ms - record.elapsed_ms;
        break;
      }
      case 'inference':
        firstSeenSinceTool = [];
        break;
      case 'tool_call': {
        const seen = firstSeenSinceTool;
        firstSeenSinceTool = [];
        if (record.tool !== 'call-member') break;
        const fromOutput = CALL_ID_IN_OUTPUT.exec(record.output)?.[1];
        const member = memberOf(record.input);
        const callId = fromOutput && calls.has(fromOutput) ? fromOutput : seen.find((id) => calls.get(id)?.member === member);
        const call = callId === undefined ? undefined : calls.get(callId);
        if (!call) break;
        call.toolCallId = record.tool_call_id;
        // A call in flight started with its tool call (the record is written when the tool returns).
        if (!call.ended && record.duration_ms !== null) call.startedMs = Math.min(call.startedMs, ms - record.duration_ms);
        break;
      }
      // Nothing else a task records bears on its member calls.
      case 'session_start':
      case 'session_end':
      case 'session_deadline':
      case 'commands_lost':
      case 'task_start':
      case 'task_rejected':
      case 'task_settled_on_reopen':
      case 'task_input_required':
      case 'task_resumed':
      case 'task_continued':
      case 'task_end':
      case 'task_result':
      case 'inference_retry':
      case 'spend_refused':
      case 'keep_working':
      case 'done_check':
      case 'task_input_timeout':
      case 'tool_call_denied':
      case 'hook_artifact':
      case 'hook_failed':
      case 'task_reopened':
      case 'compaction':
      case 'conversation_trimmed':
      case 'deadline_notice':
      case 'command_result_task':
      case 'control_applied':
      case 'control_refused':
      case 'control_change':
      case 'background_command':
      case 'session_status':
      case 'plan_start':
      case 'plan_step':
      case 'plan_end':
      case 'peer_handle_mint':
      case 'peer_handle_redeem':
      case 'peer_handle_refused':
      case 'peer_file_fetched':
      case 'delegation_start':
      case 'delegation':
      case 'delegation_completion':
      case 'harness_session_forgotten':
      case 'harness_start':
      case 'harness_end':
      case 'skill_call':
      case 'artifact_staged':
      case 'artifact_pulled':
      case 'tools_refreshed':
        break;
      default:
        unhandledRecord(record);
    }
  }
  return [...calls.values()];
}

/** Who made a traced call and to whom it went, as the console's call shape names them. */
export interface CallParties {
  caller: string;
  callerSessionId: string;
  callerTaskId: string;
  calleeSessionId: string | null;
}

/** A traced call in the console's shape (docs/console.md, "Formations"); the member task's state is not read here. */
export function consoleMemberCall(call: TracedMemberCall, parties: CallParties): ConsoleMemberCall {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    callId: call.callId,
    ...parties,
    callee: call.member,
    memberTaskId: call.memberTaskId,
    memberTaskState: null,
    toolCallId: call.toolCallId,
    status: call.status,
    ended: call.ended,
    offers: call.offers,
    startedAt: iso(call.startedMs),
    endedAt: call.endedMs === null ? null : iso(call.endedMs),
    elapsedMs: call.elapsedMs,
  };
}
