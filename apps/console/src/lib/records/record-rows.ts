/**
 * The task record's rows with formation member tasks nested (docs/console.md, "Formations"): under each
 * `call-member` tool call, the member's task and its turns and tool calls, placed on the calling task's time axis;
 * and under each `submit-plan` tool call its plan's steps (docs/console.md, "Plans").
 */
import {
  RECORD_MEMBER_DEPTH,
  type TaskRecordEntry,
  type TaskRecordMember,
  type TaskRecordMemberCall,
  type TaskRecordPlanStep,
  type TaskRecordSummary,
} from '@murmur/protocol';
import { doorKeyOfUrl } from '../door/door-address.js';

type TimedEntry = Extract<TaskRecordEntry, { kind: 'turn' | 'tool-call' }>;

export type RecordRow =
  | { kind: 'entry'; entry: TaskRecordEntry /** Its index in the task's own record (links name it). */; index: number }
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
  | {
      kind: 'member-entry';
      depth: number;
      member: string;
      taskId: string;
      door: string | null;
      entry: TimedEntry /** On the calling task's axis. @unit ms */;
      offsetMs: number;
    }
  | {
      kind: 'plan-step';
      depth: number;
      step: TaskRecordPlanStep;
      /** The plan's step count. */
      of: number;
      /** The task's own record index of the plan's submit-plan call; null when it is a member's call. */
      planIndex: number | null;
      /** On the calling task's axis. @unit ms */
      offsetMs: number;
    };

/** How long an entry lasted: a turn's inference call, a tool call; null for the others and when not recorded. @unit ms */
export function entryDurationMs(entry: TaskRecordEntry): number | null {
  return 'durationMs' in entry ? entry.durationMs : null;
}

/** When an entry ended (its start when it has no duration). @unit ms since the epoch */
const endOf = (e: TaskRecordEntry) => Date.parse(e.at) + (entryDurationMs(e) ?? 0);

/** The record's rows: each entry, and under each call-member tool call the member's task, nested. */
export function recordRows(entries: readonly TaskRecordEntry[], createdAt: string, members: ReadonlyMap<string, TaskRecordMember>): RecordRow[] {
  const origin = Date.parse(createdAt);
  const rows: RecordRow[] = [];
  const shown = new Set<string>();
  const steps = (entry: TaskRecordEntry, depth: number, planIndex: number | null) => {
    if (entry.kind !== 'tool-call' || !entry.planSteps) return;
    const of = entry.planSteps.length;
    for (const step of entry.planSteps) rows.push({ kind: 'plan-step', depth, step, of, planIndex, offsetMs: Date.parse(step.at) - origin });
  };
  const nest = (entry: TaskRecordEntry, depth: number) => {
    if (entry.kind !== 'tool-call' || !entry.memberCall || depth > RECORD_MEMBER_DEPTH) return;
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
      steps(e, depth + 1, null);
      nest(e, depth + 1);
    }
  };
  entries.forEach((entry, index) => {
    rows.push({ kind: 'entry', entry, index });
    steps(entry, 1, index);
    nest(entry, 1);
  });
  return rows;
}

/** The index of the tool-call entry with that tool call id (a `?toolCall=` link's entry); undefined until it is read. */
export function entryOfToolCall(entries: readonly TaskRecordEntry[], toolCallId: string | undefined): number | undefined {
  if (toolCallId === undefined) return undefined;
  const index = entries.findIndex((e) => e.kind === 'tool-call' && e.toolCallId === toolCallId);
  return index < 0 ? undefined : index;
}
