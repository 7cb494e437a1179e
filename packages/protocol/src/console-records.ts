/**
 * `mur console`'s read-only record API (docs/console.md): every task's record, rebuilt from what the runtime already
 * writes in a session's records folder (`trace.jsonl`, `store.db`), for live, stale and ended sessions alike, so a
 * post-mortem works after the capsule is gone. Served on loopback only; shared by the server and the console.
 */
import type { TaskState } from './task-states.js';
import type { JsonValue } from './types.js';

// The paths, under mur console's `/api/records` and a door's `/resources/records` (records-plane.ts): `/sessions`;
// `/sessions/<id>/tasks?q=&limit=&cursor=`, `/export`, `/peer-handles`; `/tasks?ids=…`; `/tasks/<id>?limit=&cursor=`,
// `/tasks/<id>/export`; `/calls` (docs/console.md).
/** `/tasks?ids=` takes at most this many ids. */
export const RECORD_IDS_MAX = 100;

/** A page holds at most this many entries or summaries. @default 200 */
export const RECORD_PAGE_DEFAULT = 200;
export const RECORD_PAGE_MAX = 1000;

/** live: registered and its process runs; stale: registered, process gone; ended: unregistered, records remain. */
export type RecordSessionState = 'live' | 'stale' | 'ended';

export interface ConsoleRecordSession {
  sessionId: string;
  name: string | null;
  /** http://host:port its door served on, from the trace's session_start. */
  url: string | null;
  recordsDir: string;
  state: RecordSessionState;
  startedAt: string | null;
  endedAt: string | null;
}

export interface ConsoleRecordSessionsResponse {
  sessions: ConsoleRecordSession[];
}

/** One task as its record summarises it. Times are RFC 3339 UTC with milliseconds. */
export interface TaskRecordSummary {
  taskId: string;
  contextId: string;
  sessionId: string;
  state: TaskState;
  createdAt: string;
  /** When the stored state last changed. */
  updatedAt: string;
  /** The operator's input text as sent, or null when the trace predates recording it. */
  input: string | null;
  /** The answer a completed task gave. */
  answer: string | null;
  /** The final status message's text, or what an input-required task asks. */
  statusText: string | null;
  /** createdAt → updatedAt of an ended task; null while it runs. @unit ms */
  durationMs: number | null;
  turns: number;
  toolCalls: number;
}

interface TaskRecordAttachment {
  mediaType: string;
  bytes: number;
}

/** How a delegation stands: `running` until its `delegation` record, then that record's status. */
export type ConsoleDelegationStatus = 'running' | 'completed' | 'failed' | 'canceled' | 'rejected' | 'timed_out' | 'lost';

/** A call in flight (`offering`: turned away busy and re-offered; `running`: the member holds the task), or how it ended. */
export type MemberCallStatus = 'offering' | 'running' | 'completed' | 'rejected' | 'failed' | 'no_answer' | 'timed_out' | 'unreachable' | 'abandoned';

/** What a task record's `call-member` tool-call entry says of the call it made. */
export interface TaskRecordMemberCall {
  callId: string;
  member: string;
  memberTaskId: string | null;
  /** The session holding the member's task, found on this host; null when none does. */
  memberSessionId: string | null;
  /** http://host:port of that session's door. */
  memberUrl: string | null;
  status: MemberCallStatus;
  /**
   * When the call started (RFC 3339 UTC, milliseconds): an ended call's `member_call` time less its elapsed time; a
   * call in flight, its tool call's start. The caller waits for the answer from here for elapsedMs, which outlasts the
   * call-member tool call itself (the answer is delivered with the round's).
   */
  startedAt: string;
  /** null while the call is in flight. @unit ms */
  elapsedMs: number | null;
  offers: number;
}

/** How one step of a plan ends (docs/plans.md): the statuses its `plan_step` record carries. */
export const PLAN_STEP_STATUSES = ['passed', 'failed', 'refused', 'denied', 'background', 'skipped', 'canceled'] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];

/** What a task record's `submit-plan` tool-call entry says of one step of its plan, from the step's `plan_step` record. */
export interface TaskRecordPlanStep {
  /** The step's id in the plan. */
  id: string;
  /** Its place in the plan, from 1. */
  index: number;
  /** A tool step's tool; null for a capsule step. */
  tool: string | null;
  /** A capsule step's door (its `capsule` URL); null for a tool step. */
  capsule: string | null;
  status: PlanStepStatus;
  /** Its input as filled in (a capsule step's `{capsule, task}`); null for a skipped step, which never had one. */
  input: JsonValue | null;
  /** What the model read of it (a refused or denied step's sentence); empty for a skipped step. */
  output: string;
  /** A shell step's exit code; null otherwise. */
  exitCode: number | null;
  /** A capsule step's task at its door. */
  doorTaskId: string | null;
  /** When it started (RFC 3339 UTC, milliseconds) and its offset from the task's creation. @unit ms */
  at: string;
  offsetMs: number;
  /** @unit ms */
  durationMs: number;
}

interface EntryBase {
  /** When it started (RFC 3339 UTC, milliseconds). */
  at: string;
  /** `at` minus the task's creation. @unit ms */
  offsetMs: number;
}

/** One thing that happened in a task, in the order it happened. */
export type TaskRecordEntry =
  | (EntryBase & { kind: 'input'; text: string | null; attachments: TaskRecordAttachment[] })
  | (EntryBase & {
      kind: 'turn';
      turn: number;
      /** The inference call's wall time (or, from traces that predate it, until the task's next entry). @unit ms */
      durationMs: number | null;
      /** From the call's start to its first streamed chunk; null when nothing streamed or not recorded. @unit ms */
      firstTokenMs: number | null;
      /** The tokens the driver reported for the call; null when it reported none. */
      inputTokens: number | null;
      outputTokens: number | null;
      /** The part of inputTokens read from the provider's cache (usage.cached); null when not reported. */
      cachedTokens: number | null;
      /** Why the call stopped (`end_turn`, `tool_use`, `input_required`…), when recorded. */
      stopReason: string | null;
    })
  | (EntryBase & {
      kind: 'tool-call';
      toolCallId: string;
      tool: string;
      input: JsonValue | null;
      output: string | null;
      exitCode: number | null;
      status: 'passed' | 'error';
      durationMs: number | null;
      /** A `call-member` call: the member call it made (null when it made none, e.g. refused). Absent on other tools. */
      memberCall?: TaskRecordMemberCall | null;
      /** A `submit-plan` call: its plan's steps in plan order (empty when the plan was refused before it ran). Absent on other tools. */
      planSteps?: TaskRecordPlanStep[];
      /** A skill's call (its `skill_call` record): the artifact it read. Absent on tools. */
      skill?: string;
    })
  | (EntryBase & { kind: 'input-required'; prompt: string })
  | (EntryBase & { kind: 'reply'; text: string | null })
  | (EntryBase & { kind: 'answer'; text: string })
  | (EntryBase & { kind: 'end'; state: TaskState; status: string | null })
  /** An on_task_end hook reopened the task: the entries after it, up to the next one, are attempt `attempt` (from 2). */
  | (EntryBase & { kind: 'reopen'; attempt: number; hook: string })
  /**
   * A harness run started (`harness_start`, docs/harness.md): the harness (`claude-code`, `codex`), the model it was
   * told to use, whether it started a new harness session or resumed the context's, and that session's id (null until
   * a new Codex thread is announced).
   */
  | (EntryBase & { kind: 'harness-start'; harness: string; model: string; sessionMode: 'new' | 'resume'; harnessSessionId: string | null })
  /** A harness run ended (`harness_end`): how, its process's exit code, the turns it closed, and why it failed. */
  | (EntryBase & {
      kind: 'harness-end';
      harness: string;
      harnessSessionId: string | null;
      outcome: 'answered' | 'failed' | 'stopped';
      exitCode: number | null;
      turns: number;
      failure: string | null;
    })
  /** The context's harness session was dropped before the task's first run (`harness_session_forgotten`): forgetSession (`a2a`) or `mur run --forget-session` (`cli`). */
  | (EntryBase & { kind: 'harness-session-forgotten'; harnessSessionId: string; requestedBy: 'a2a' | 'cli' })
  /** No reply came within lifecycle.input_timeout_secs: the wait ended and the task went back to work (`task_input_timeout`). */
  | (EntryBase & { kind: 'input-timeout'; waitedSecs: number })
  /** An inference call failed and is tried again after delayMs (`inference_retry`). */
  | (EntryBase & { kind: 'inference-retry'; turn: number; attempt: number; reason: string; delayMs: number })
  /** A delegation to a sub-capsule (`delegation_start` … `delegation`): `status` is `running` and `durationMs` null while it runs. */
  | (EntryBase & {
      kind: 'delegation';
      delegationId: string;
      capsule: string;
      childSessionId: string;
      childTaskId: string;
      /** The delegate-task tool call that started it, when its output names it. */
      toolCallId: string | null;
      status: ConsoleDelegationStatus;
      /** @unit ms */
      durationMs: number | null;
    })
  /** lifecycle.keep_working sent its message after turn `turn`: the task goes on (`keep_working`). */
  | (EntryBase & { kind: 'keep-working'; turn: number; used: number; left: number })
  /** One run of lifecycle.done_check's command (`done_check`); it started durationMs before its record. */
  | (EntryBase & {
      kind: 'done-check';
      turn: number;
      outcome: 'passed' | 'sent_back' | 'exhausted';
      exitCode: number | null;
      timedOut: boolean;
      /** @unit ms */
      durationMs: number;
      used: number;
      left: number;
    })
  /** The conversation was compacted before turn `turn` (`compaction`); `failed` says why it could not be. */
  | (EntryBase & {
      kind: 'compaction';
      turn: number;
      tokensBefore: number;
      tokensBeforeSource: 'actual' | 'estimate';
      tokensAfter: number;
      budgetTokens: number;
      elidedResults: number;
      summarizedMessages: number;
      /** @unit ms */
      durationMs: number;
      failed: string | null;
    })
  /** The conversation was trimmed to its character budget before turn `turn` (`conversation_trimmed`). */
  | (EntryBase & { kind: 'trimmed'; turn: number; elidedChars: number; budgetChars: number })
  /** A spend ceiling refused turn `turn`'s call (`spend_refused`): tokens, not money. */
  | (EntryBase & { kind: 'spend-refused'; turn: number; ceiling: 'session' | 'machine'; limit: number; spent: number; projected: number })
  /** An on_tool_call hook denied a tool call: it ran nothing (`tool_call_denied`). */
  | (EntryBase & { kind: 'tool-denied'; tool: string; toolCallId: string; hook: string; reason: string })
  /** An on_task_end hook's outcome other than a reopen: its artifact (`hook_artifact`), or it had no say (`hook_failed`). */
  | (EntryBase & { kind: 'hook'; hook: string; outcome: 'artifact' | 'failed'; text: string });

/** A formation member's task as a caller's record page carries it: its summary and its first entries. */
export interface TaskRecordMember {
  task: TaskRecordSummary;
  entries: TaskRecordEntry[];
}

/** Member calls nest this deep at most in a page's `members` (a member that calls a member that calls a member). */
export const RECORD_MEMBER_DEPTH = 3;
/** A page carries at most this many member tasks' records… */
export const RECORD_MEMBERS_MAX = 50;
/** …each with at most this many of its first entries. */
export const RECORD_MEMBER_ENTRIES_MAX = 2000;

export interface ConsoleTaskRecordPage {
  task: TaskRecordSummary;
  entries: TaskRecordEntry[];
  /** Every entry of the record. */
  total: number;
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
  /**
   * The records of the member tasks this page's call-member entries started, and theirs in turn, RECORD_MEMBER_DEPTH
   * levels deep, as found on this host (a member task whose record is elsewhere is absent): the record and its
   * members' records in one answer.
   */
  members: TaskRecordMember[];
}

/** The member task ids a record's call-member tool calls started, in order. */
export function memberTaskIds(entries: readonly TaskRecordEntry[]): string[] {
  return entries.flatMap((e) => (e.kind === 'tool-call' && e.memberCall?.memberTaskId ? [e.memberCall.memberTaskId] : []));
}

export interface ConsoleTaskSummariesResponse {
  tasks: TaskRecordSummary[];
}

export interface ConsoleTaskSummariesPage {
  session: ConsoleRecordSession;
  tasks: TaskRecordSummary[];
  /** Tasks matching `q` (all of the session's when absent). */
  total: number;
  nextCursor: string | null;
}

/** The first line of a task's input, for tables and headers. */
export function firstLine(text: string | null, max = 120): string | null {
  if (text === null) return null;
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
