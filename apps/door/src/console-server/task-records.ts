import { isTerminalState, type JsonValue, type TaskRecordAttachment, type TaskRecordMemberCall, type TaskRecordEntry, type TaskRecordSummary, type TaskState } from '@murmur/protocol';
import type { StoredTask } from './store-reader.js';
import type { TraceRecord } from './trace-reader.js';

const iso = (ms: number) => new Date(ms).toISOString();
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function attachmentsOf(value: unknown): TaskRecordAttachment[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((a) => {
    const item = a as { media_type?: unknown; bytes?: unknown };
    const mediaType = str(item.media_type);
    const bytes = num(item.bytes);
    return mediaType !== null && bytes !== null ? [{ mediaType, bytes }] : [];
  });
}

/**
 * The task's record entries, in time order, from its trace records and its stored row; `memberCalls` (by tool call
 * id) are the member calls its `call-member` tool calls made (docs/console.md, "Formations").
 */
export function recordEntries(row: StoredTask, records: TraceRecord[], memberCalls: ReadonlyMap<string, TaskRecordMemberCall> = new Map()): TaskRecordEntry[] {
  const origin = row.createdAtMs;
  const at = (ms: number) => ({ at: iso(ms), offsetMs: Math.max(0, ms - origin) });
  const entries: { ms: number; entry: TaskRecordEntry }[] = [];
  // The door writes task_end before task_result: the answer is placed at the end's time, before it.
  const endRecord = records.find((r) => r.type === 'task_end');
  const endMs = endRecord ? Date.parse(endRecord.ts) : Number.NaN;
  const push = (ms: number, entry: TaskRecordEntry) => entries.push({ ms, entry });
  for (const record of records) {
    const ms = Date.parse(record.ts);
    if (Number.isNaN(ms)) continue;
    switch (record.type) {
      case 'task_start':
        push(ms, { kind: 'input', ...at(ms), text: str(record.text), attachments: attachmentsOf(record.attachments) });
        break;
      case 'inference': {
        // Written when the call returns: with duration_ms it started that long before, and lasted that long.
        const durationMs = num(record.duration_ms);
        const start = durationMs === null ? ms : ms - durationMs;
        const usage = typeof record.usage === 'object' && record.usage !== null ? (record.usage as Record<string, unknown>) : null;
        push(start, {
          kind: 'turn',
          ...at(start),
          turn: num(record.turn) ?? 0,
          durationMs,
          firstTokenMs: num(record.first_token_ms),
          inputTokens: usage ? num(usage.input) : null,
          outputTokens: usage ? num(usage.output) : null,
          stopReason: str(record.stop_reason),
        });
        break;
      }
      case 'tool_call': {
        // Written when the call returns: it started duration_ms earlier.
        const durationMs = num(record.duration_ms);
        const start = durationMs === null ? ms : ms - durationMs;
        const toolCallId = str(record.tool_call_id) ?? '';
        push(start, {
          kind: 'tool-call',
          ...at(start),
          toolCallId,
          tool: str(record.tool) ?? '',
          input: (record.input as JsonValue | undefined) ?? null,
          output: str(record.output),
          exitCode: num(record.exit_code),
          status: record.status === 'error' ? 'error' : 'passed',
          durationMs,
          ...(record.tool === 'call-member' ? { memberCall: memberCalls.get(toolCallId) ?? null } : {}),
        });
        break;
      }
      case 'task_input_required':
        push(ms, { kind: 'input-required', ...at(ms), prompt: str(record.prompt) ?? '' });
        break;
      case 'task_resumed':
        push(ms, { kind: 'reply', ...at(ms), text: str(record.reply) });
        break;
      case 'task_result':
        if (row.response !== null) {
          const answerMs = Number.isNaN(endMs) ? ms : Math.min(ms, endMs);
          push(answerMs, { kind: 'answer', ...at(answerMs), text: row.response });
        }
        break;
      case 'task_end':
        push(ms, { kind: 'end', ...at(ms), state: (str(record.state) ?? row.state) as TaskState, status: str(record.status) });
        break;
      case 'task_rejected':
        push(ms, { kind: 'end', ...at(ms), state: 'TASK_STATE_REJECTED', status: str(record.reason) });
        break;
      case 'task_settled_on_reopen':
        push(ms, { kind: 'end', ...at(ms), state: 'TASK_STATE_FAILED', status: 'settled FAILED when the session reopened' });
        break;
      default:
        break;
    }
  }
  const rank = (e: TaskRecordEntry) => (e.kind === 'end' ? 1 : 0);
  entries.sort((a, b) => a.ms - b.ms || rank(a.entry) - rank(b.entry));
  // A turn without a recorded duration (older traces) lasts until the next thing the task did.
  for (let i = 0; i < entries.length; i++) {
    const { entry, ms } = entries[i];
    if (entry.kind === 'turn' && entry.durationMs === null && i + 1 < entries.length) entry.durationMs = entries[i + 1].ms - ms;
  }
  return entries.map((e) => e.entry);
}

export function recordSummary(sessionId: string, row: StoredTask, records: TraceRecord[]): TaskRecordSummary {
  const start = records.find((r) => r.type === 'task_start');
  const ended = isTerminalState(row.state);
  return {
    taskId: row.id,
    contextId: row.contextId,
    sessionId,
    state: row.state,
    createdAt: iso(row.createdAtMs),
    updatedAt: iso(row.statusTimestampMs),
    input: start ? str(start.text) : null,
    answer: row.response,
    statusText: row.state === 'TASK_STATE_INPUT_REQUIRED' ? row.prompt : row.statusText,
    durationMs: ended ? Math.max(0, row.statusTimestampMs - row.createdAtMs) : null,
    turns: records.filter((r) => r.type === 'inference').length,
    toolCalls: records.filter((r) => r.type === 'tool_call').length,
  };
}

/** Whether a task's input, replies, answer or status text contain `query` (case-insensitive). */
export function matches(summary: TaskRecordSummary, records: TraceRecord[], query: string): boolean {
  const needle = query.toLowerCase();
  const texts = [summary.input, summary.answer, summary.statusText, summary.taskId, ...records.map((r) => str(r.reply))];
  return texts.some((t) => t?.toLowerCase().includes(needle));
}
