import {
  isTerminalState,
  type JsonValue,
  type TaskRecordEntry,
  type TaskRecordMemberCall,
  type TaskRecordPlanStep,
  type TaskRecordSummary,
} from '@murmur/protocol';
import { CAPSULE_STEP_TOOL } from '../records/record-statuses.js';
import { delegationsOf } from './delegation-records.js';
import type { StoredTask } from '../records/task-table.js';
import type { TraceLine, TraceLineOf } from '../records/trace-schema.js';
import { unhandledRecord } from '../records/unhandled-record.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The steps of each plan the task's `submit-plan` calls ran, by the call's tool call id, in plan order: one per
 * `plan_step` record (written when the step ends, so it started duration_ms before). A capsule step's door is its
 * filled-in input's `capsule`.
 */
function planStepsOf(records: readonly TraceLine[], origin: number): Map<string, TaskRecordPlanStep[]> {
  const plans = new Map<string, TaskRecordPlanStep[]>();
  for (const record of records) {
    if (record.type !== 'plan_step') continue;
    const ended = Date.parse(record.ts);
    if (Number.isNaN(ended)) continue;
    const start = ended - record.duration_ms;
    const steps = plans.get(record.tool_call_id) ?? [];
    plans.set(record.tool_call_id, steps);
    steps.push({
      id: record.step,
      index: record.index,
      tool: record.tool === CAPSULE_STEP_TOOL ? null : record.tool,
      capsule: record.tool === CAPSULE_STEP_TOOL ? capsuleOf(record) : null,
      status: record.status,
      input: (record.input as JsonValue | undefined) ?? null,
      output: record.output,
      exitCode: record.exit_code,
      doorTaskId: record.door_task_id,
      at: iso(start),
      offsetMs: Math.max(0, start - origin),
      durationMs: record.duration_ms,
    });
  }
  for (const steps of plans.values()) steps.sort((a, b) => a.index - b.index);
  return plans;
}

function capsuleOf(record: TraceLineOf<'plan_step'>): string | null {
  const input = record.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const capsule = (input as Record<string, unknown>).capsule;
  return typeof capsule === 'string' ? capsule : null;
}

/**
 * The task's record entries, in time order, from its trace records and its stored row; `memberCalls` (by tool call
 * id) are the member calls its `call-member` tool calls made (docs/console.md, "Formations").
 */
export function recordEntries(
  row: StoredTask,
  records: readonly TraceLine[],
  memberCalls: ReadonlyMap<string, TaskRecordMemberCall> = new Map(),
): TaskRecordEntry[] {
  return orderedEntries(row, records, memberCalls).map((e) => e.entry);
}

/** A record entry and the index in `records` of the record it was made from. */
export interface OrderedEntry {
  entry: TaskRecordEntry;
  from: number;
}

/** recordEntries(), each entry with the index of its record: a page reads its tool calls' records in full by it. */
export function orderedEntries(
  row: StoredTask,
  records: readonly TraceLine[],
  memberCalls: ReadonlyMap<string, TaskRecordMemberCall> = new Map(),
): OrderedEntry[] {
  const origin = row.createdAtMs;
  const at = (ms: number) => ({ at: iso(ms), offsetMs: Math.max(0, ms - origin) });
  const entries: { ms: number; entry: TaskRecordEntry; from: number }[] = [];
  // The door writes task_end before task_result: the answer is placed at the end's time, before it.
  const endRecord = records.find((r) => r.type === 'task_end');
  const endMs = endRecord ? Date.parse(endRecord.ts) : Number.NaN;
  let from = 0;
  const push = (ms: number, entry: TaskRecordEntry) => entries.push({ ms, entry, from });
  // A call's record is written when it returns: it started duration_ms earlier.
  const pushCall = (
    ms: number,
    tool: string,
    record: TraceLineOf<'tool_call'> | TraceLineOf<'skill_call'>,
    extra: Partial<Extract<TaskRecordEntry, { kind: 'tool-call' }>>,
  ) => {
    const start = record.duration_ms === null ? ms : ms - record.duration_ms;
    push(start, {
      kind: 'tool-call',
      ...at(start),
      toolCallId: record.tool_call_id,
      tool,
      input: (record.input as JsonValue | undefined) ?? null,
      output: record.output,
      exitCode: record.exit_code,
      status: record.status,
      durationMs: record.duration_ms,
      ...extra,
    });
  };
  const plans = planStepsOf(records, origin);
  const delegations = new Map(delegationsOf(row.id, records).map((d) => [d.delegationId, d]));
  for (const [index, record] of records.entries()) {
    from = index;
    const ms = Date.parse(record.ts);
    if (Number.isNaN(ms)) continue;
    switch (record.type) {
      case 'task_start':
        push(ms, { kind: 'input', ...at(ms), text: record.text, attachments: record.attachments.map((a) => ({ mediaType: a.media_type, bytes: a.bytes })) });
        break;
      case 'inference': {
        // Written when the call returns: it started duration_ms before, and lasted that long.
        const start = ms - record.duration_ms;
        const usage = record.usage === 'unreported' ? null : record.usage;
        push(start, {
          kind: 'turn',
          ...at(start),
          turn: record.turn,
          durationMs: record.duration_ms,
          firstTokenMs: record.first_token_ms,
          inputTokens: usage?.input ?? null,
          outputTokens: usage?.output ?? null,
          cachedTokens: usage?.cached ?? null,
          stopReason: record.stop_reason,
        });
        break;
      }
      case 'tool_call':
        pushCall(ms, record.tool, record, {
          ...(record.tool === 'call-member' ? { memberCall: memberCalls.get(record.tool_call_id) ?? null } : {}),
          ...(record.tool === 'submit-plan' ? { planSteps: plans.get(record.tool_call_id) ?? [] } : {}),
        });
        break;
      case 'skill_call':
        // A skill's call reads as any other call, naming the artifact it read (docs/artifacts.md, "Skills").
        pushCall(ms, record.skill, record, { skill: record.artifact });
        break;
      case 'task_input_required':
        push(ms, { kind: 'input-required', ...at(ms), prompt: record.prompt });
        break;
      case 'task_resumed':
        push(ms, { kind: 'reply', ...at(ms), text: record.reply });
        break;
      case 'task_result':
        if (row.response !== null) {
          const answerMs = Number.isNaN(endMs) ? ms : Math.min(ms, endMs);
          push(answerMs, { kind: 'answer', ...at(answerMs), text: row.response });
        }
        break;
      case 'task_end':
        push(ms, { kind: 'end', ...at(ms), state: record.state, status: record.status });
        break;
      case 'task_rejected':
        push(ms, { kind: 'end', ...at(ms), state: 'TASK_STATE_REJECTED', status: record.reason });
        break;
      case 'task_settled_on_reopen':
        push(ms, { kind: 'end', ...at(ms), state: 'TASK_STATE_FAILED', status: 'settled FAILED when the session reopened' });
        break;
      case 'task_reopened':
        push(ms, { kind: 'reopen', ...at(ms), attempt: record.attempt, hook: record.hook });
        break;
      // A harness run's own records (docs/harness.md, "Frames and records"): where each run began and ended, and a forget.
      case 'harness_start':
        push(ms, {
          kind: 'harness-start',
          ...at(ms),
          harness: record.harness,
          model: record.model,
          sessionMode: record.session_mode,
          harnessSessionId: record.harness_session_id,
        });
        break;
      case 'harness_end':
        push(ms, {
          kind: 'harness-end',
          ...at(ms),
          harness: record.harness,
          harnessSessionId: record.harness_session_id,
          outcome: record.outcome,
          exitCode: record.exit_code,
          turns: record.turns,
          failure: record.failure ?? null,
        });
        break;
      case 'harness_session_forgotten':
        push(ms, { kind: 'harness-session-forgotten', ...at(ms), harnessSessionId: record.harness_session_id, requestedBy: record.requested_by });
        break;
      case 'task_input_timeout':
        push(ms, { kind: 'input-timeout', ...at(ms), waitedSecs: record.waited_secs });
        break;
      case 'inference_retry':
        push(ms, { kind: 'inference-retry', ...at(ms), turn: record.turn, attempt: record.attempt, reason: record.reason, delayMs: record.delay_ms });
        break;
      case 'delegation_start': {
        // One entry a delegation, at its start; `delegation` (its end) and delegate-task's output only complete it.
        const d = delegations.get(record.delegation_id);
        if (!d) break;
        push(ms, {
          kind: 'delegation',
          ...at(ms),
          delegationId: d.delegationId,
          capsule: d.capsule,
          childSessionId: d.childSessionId,
          childTaskId: d.childTaskId,
          toolCallId: d.toolCallId,
          status: d.status,
          durationMs: d.endedMs === null ? null : Math.max(0, d.endedMs - d.startedMs),
        });
        break;
      }
      // The governors (docs/agent-loop.md): each is an entry, so the record shows what steered the task.
      case 'keep_working':
        push(ms, { kind: 'keep-working', ...at(ms), turn: record.turn, used: record.used, left: record.left });
        break;
      case 'done_check': {
        // Written when the command returns: it started duration_ms before.
        const start = ms - record.duration_ms;
        push(start, {
          kind: 'done-check',
          ...at(start),
          turn: record.turn,
          outcome: record.outcome,
          exitCode: record.exit_code,
          timedOut: record.timed_out,
          durationMs: record.duration_ms,
          used: record.used,
          left: record.left,
        });
        break;
      }
      case 'compaction': {
        const start = ms - record.duration_ms;
        push(start, {
          kind: 'compaction',
          ...at(start),
          turn: record.turn,
          tokensBefore: record.tokens_before,
          tokensBeforeSource: record.tokens_before_source,
          tokensAfter: record.tokens_after,
          budgetTokens: record.budget_tokens,
          elidedResults: record.elided_results,
          summarizedMessages: record.summarized_messages,
          durationMs: record.duration_ms,
          failed: record.failed ?? null,
        });
        break;
      }
      case 'conversation_trimmed':
        push(ms, { kind: 'trimmed', ...at(ms), turn: record.turn, elidedChars: record.elided_chars, budgetChars: record.budget_chars });
        break;
      case 'spend_refused':
        push(ms, {
          kind: 'spend-refused',
          ...at(ms),
          turn: record.turn,
          ceiling: record.ceiling,
          limit: record.limit,
          spent: record.spent,
          projected: record.projected,
        });
        break;
      case 'tool_call_denied':
        push(ms, { kind: 'tool-denied', ...at(ms), tool: record.tool, toolCallId: record.tool_call_id, hook: record.hook, reason: record.reason });
        break;
      case 'hook_artifact':
        push(ms, { kind: 'hook', ...at(ms), hook: record.hook, outcome: 'artifact', text: record.content });
        break;
      case 'hook_failed':
        push(ms, { kind: 'hook', ...at(ms), hook: record.hook, outcome: 'failed', text: record.reason });
        break;
      // Not entries of the record: the session's own, and what the entries above already show (a member call's
      // records are its call-member tool call's, a plan's its submit-plan tool call's steps, a delegation's end its
      // delegation entry's).
      case 'session_start':
      case 'session_end':
      case 'session_deadline':
      case 'commands_lost':
      case 'task_continued':
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
      case 'member_call_busy':
      case 'member_call_start':
      case 'member_call':
      case 'delegation':
      case 'delegation_completion':
      case 'artifact_staged':
      case 'artifact_pulled':
      case 'tools_refreshed':
        break;
      default:
        unhandledRecord(record);
    }
  }
  const rank = (e: TaskRecordEntry) => (e.kind === 'end' ? 1 : 0);
  entries.sort((a, b) => a.ms - b.ms || rank(a.entry) - rank(b.entry));
  return entries.map(({ entry, from }) => ({ entry, from }));
}

/** A tool call's entry made from its light record (record-reads/trace-index.ts), with the input and output of its full record. */
export function withToolCallInFull(entry: TaskRecordEntry, full: TraceLine): TaskRecordEntry {
  if (entry.kind !== 'tool-call' || (full.type !== 'tool_call' && full.type !== 'skill_call')) return entry;
  return { ...entry, input: (full.input as JsonValue | undefined) ?? null, output: full.output };
}

/** What a task's summary reads from its records: its input (task_start's text) and how many turns and tool calls it made. */
export interface TaskCounts {
  input: string | null;
  turns: number;
  toolCalls: number;
}

export function recordSummary(sessionId: string, row: StoredTask, counts: TaskCounts): TaskRecordSummary {
  const ended = isTerminalState(row.state);
  return {
    taskId: row.id,
    contextId: row.contextId,
    sessionId,
    state: row.state,
    createdAt: iso(row.createdAtMs),
    updatedAt: iso(row.statusTimestampMs),
    input: counts.input,
    answer: row.response,
    statusText: row.state === 'TASK_STATE_INPUT_REQUIRED' ? row.prompt : row.statusText,
    durationMs: ended ? Math.max(0, row.statusTimestampMs - row.createdAtMs) : null,
    turns: counts.turns,
    toolCalls: counts.toolCalls,
  };
}

/** Whether a task's input, replies, answer or status text contain `query` (case-insensitive). */
export function matches(summary: TaskRecordSummary, replies: readonly string[], query: string): boolean {
  const needle = query.toLowerCase();
  const texts = [summary.input, summary.answer, summary.statusText, summary.taskId, ...replies];
  return texts.some((t) => t?.toLowerCase().includes(needle));
}
