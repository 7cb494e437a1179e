/**
 * The task record's rows with formation member tasks nested (docs/console.md, "Formations"): under each
 * `call-member` tool call, the member's task and its turns and tool calls, placed on the calling task's time axis.
 */
import type { TaskRecordEntry, TaskRecordMemberCall, TaskRecordSummary } from '@murmur/protocol';
import { doorKeyOfUrl } from './door-address.js';

/** A member task's record as the record API answers it. */
export interface MemberRecord {
  task: TaskRecordSummary;
  entries: TaskRecordEntry[];
}

export type TimedEntry = Extract<TaskRecordEntry, { kind: 'turn' | 'tool-call' }>;

export type RecordRow =
  | { kind: 'entry'; entry: TaskRecordEntry; /** Its index in the task's own record (links name it). */ index: number }
  | {
      kind: 'member-task';
      depth: number;
      call: TaskRecordMemberCall;
      /** host:port of the member's door, for links; null when not known. */
      door: string | null;
      task: TaskRecordSummary | null;
      /** On the calling task's axis. @unit ms */
      offsetMs: number;
      durationMs: number | null;
    }
  | { kind: 'member-entry'; depth: number; member: string; taskId: string; door: string | null; entry: TimedEntry; /** On the calling task's axis. @unit ms */ offsetMs: number };

/** Member calls nest this deep at most (a member that calls a member that calls a member). */
export const MAX_NESTING = 3;

/** The member task ids a record's call-member tool calls started. */
export function memberTaskIds(entries: readonly TaskRecordEntry[]): string[] {
  return entries.flatMap((e) => (e.kind === 'tool-call' && e.memberCall?.memberTaskId ? [e.memberCall.memberTaskId] : []));
}

const endOf = (e: TaskRecordEntry) => Date.parse(e.at) + ('durationMs' in e && e.durationMs !== null ? e.durationMs : 0);

/** The record's rows: each entry, and under each call-member tool call the member's task, nested. */
export function recordRows(entries: readonly TaskRecordEntry[], createdAt: string, members: ReadonlyMap<string, MemberRecord>): RecordRow[] {
  const origin = Date.parse(createdAt);
  const rows: RecordRow[] = [];
  const shown = new Set<string>();
  const nest = (entry: TaskRecordEntry, depth: number) => {
    if (entry.kind !== 'tool-call' || !entry.memberCall || depth > MAX_NESTING) return;
    const call = entry.memberCall;
    const door = call.memberUrl ? doorKeyOfUrl(call.memberUrl) : null;
    const record = call.memberTaskId && !shown.has(call.memberTaskId) ? members.get(call.memberTaskId) : undefined;
    if (!record) {
      rows.push({ kind: 'member-task', depth, call, door, task: null, offsetMs: Date.parse(entry.at) - origin, durationMs: call.elapsedMs });
      return;
    }
    shown.add(record.task.taskId);
    const start = Date.parse(record.task.createdAt);
    const last = record.entries.reduce((max, e) => Math.max(max, endOf(e)), start);
    rows.push({ kind: 'member-task', depth, call, door, task: record.task, offsetMs: start - origin, durationMs: record.task.durationMs ?? last - start });
    for (const e of record.entries) {
      if (e.kind !== 'turn' && e.kind !== 'tool-call') continue;
      rows.push({ kind: 'member-entry', depth, member: call.member, taskId: record.task.taskId, door, entry: e, offsetMs: Date.parse(e.at) - origin });
      nest(e, depth + 1);
    }
  };
  entries.forEach((entry, index) => {
    rows.push({ kind: 'entry', entry, index });
    nest(entry, 1);
  });
  return rows;
}

/** Where the rows end on the calling task's axis (nested member tasks may end after the caller's own entries). @unit ms */
export function rowsSpanMs(rows: readonly RecordRow[]): number {
  return rows.reduce((max, row) => {
    if (row.kind === 'entry') return max;
    const duration = row.kind === 'member-task' ? row.durationMs : row.entry.durationMs;
    return Math.max(max, row.offsetMs + (duration ?? 0));
  }, 0);
}
