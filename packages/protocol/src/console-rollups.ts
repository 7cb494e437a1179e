/**
 * Where the time and the tokens went (docs/console.md): one task's time split and tokens per turn, read from its
 * record entries, and the rollup of many tasks a server computes from their records (the wire shape).
 */
import type { TaskRecordEntry } from './console-records.js';
import type { TaskState } from './task-states.js';

/**
 * The rollup's path segment: `<record base>/sessions/<sessionId>/rollup?q=&state=&contextId=&since=` is one session's
 * rollup; `<record base>/rollup?sessions=<id>,…&…` several sessions' (a formation's members: mur console reads its
 * host's, a door its own session's). The record base is `/api/records` on mur console, `/resources/records` on a door.
 */
export const CONSOLE_ROLLUP_SUFFIX = '/rollup';
export const ROLLUP_SESSIONS_MAX = 50;
/** A rollup's tasks over time are in at most this many buckets. */
export const ROLLUP_BUCKETS_MAX = 48;
/** The slowest tools a rollup names. */
export const ROLLUP_TOOLS_SHOWN = 10;
/** Distinct tool names a rollup tells apart; further names count as ROLLUP_OTHER_TOOLS. */
export const ROLLUP_TOOL_NAMES_MAX = 200;
export const ROLLUP_OTHER_TOOLS = '(other tools)';
/** Bucket widths a rollup picks from, smallest first. @unit ms */
export const ROLLUP_BUCKET_WIDTHS_MS = [1, 5, 15, 60, 300, 900, 3600, 10_800, 21_600, 43_200, 86_400, 604_800, 2_592_000].map((s) => s * 1000);

/** A task's wall time and how it divides. @unit ms */
export interface TimeSplit {
  wallMs: number;
  /** Inference calls. */
  modelMs: number;
  /** Tool calls other than call-member. */
  toolMs: number;
  /** call-member calls: waiting for members. */
  memberMs: number;
  /** From each input request to its reply (or the end). */
  inputMs: number;
  /** wallMs less the four parts, at least 0. */
  otherMs: number;
}

export const TIME_SPLIT_PARTS = ['modelMs', 'toolMs', 'memberMs', 'inputMs', 'otherMs'] as const;

/** How a task's wall time divides between model calls, tool calls, members, input and the rest (docs/console.md). */
export function taskTimeSplit(entries: readonly TaskRecordEntry[], wallMs: number): TimeSplit {
  let modelMs = 0;
  let toolMs = 0;
  let memberMs = 0;
  let inputMs = 0;
  let waitingSince: number | null = null;
  for (const entry of entries) {
    if (entry.kind === 'turn') modelMs += entry.durationMs ?? 0;
    else if (entry.kind === 'tool-call' && entry.tool === 'call-member') memberMs += entry.durationMs ?? 0;
    else if (entry.kind === 'tool-call') toolMs += entry.durationMs ?? 0;
    else if (entry.kind === 'input-required') waitingSince ??= entry.offsetMs;
    else if ((entry.kind === 'reply' || entry.kind === 'end') && waitingSince !== null) {
      inputMs += Math.max(0, entry.offsetMs - waitingSince);
      waitingSince = null;
    }
  }
  if (waitingSince !== null) inputMs += Math.max(0, wallMs - waitingSince);
  const otherMs = Math.max(0, wallMs - modelMs - toolMs - memberMs - inputMs);
  return { wallMs, modelMs, toolMs, memberMs, inputMs, otherMs };
}

export interface TokenCounts {
  input: number;
  output: number;
  /** The part of input read from the provider's cache. */
  cached: number;
}

/** One turn's tokens as the driver reported them; all null when it reported none. */
export interface TurnTokens {
  turn: number;
  /** The entry's offset from the task's creation. @unit ms */
  offsetMs: number;
  input: number | null;
  output: number | null;
  cached: number | null;
}

export function turnTokens(entries: readonly TaskRecordEntry[]): TurnTokens[] {
  return entries.flatMap((e) => (e.kind === 'turn' ? [{ turn: e.turn, offsetMs: e.offsetMs, input: e.inputTokens, output: e.outputTokens, cached: e.cachedTokens }] : []));
}

/** Nearest-rank percentiles from a log histogram (docs/console.md): null when there were no values. */
export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

interface RollupBucket {
  /** The bucket's start (RFC 3339 UTC); it holds the tasks created in [start, start + bucketMs). */
  start: string;
  tasks: number;
  byState: Partial<Record<TaskState, number>>;
  /** Of the bucket's ended tasks. @unit ms */
  duration: { count: number; p50: number | null; p90: number | null };
  tokens: TokenCounts;
}

export interface RollupTool {
  tool: string;
  calls: number;
  /** Calls whose status was error. */
  errors: number;
  /** @unit ms */
  totalMs: number;
  p50: number | null;
  p90: number | null;
  max: number | null;
}

/** The tasks filter a rollup was computed with: the tasks table's. */
export interface RollupFilters {
  q: string;
  state: string;
  contextId: string;
  since: string;
}

export interface ConsoleRollup {
  /** The sessions whose tasks were rolled up. */
  sessionIds: string[];
  /** Session ids asked for and not found on this host. */
  missing: string[];
  filters: RollupFilters;
  /** When the records were read (RFC 3339 UTC): the range's end, and a running task's wall time's end. */
  readAt: string;
  tasks: number;
  byState: Partial<Record<TaskState, number>>;
  turns: number;
  toolCalls: number;
  tokens: TokenCounts;
  /** Turns whose driver reported no usage (not in `tokens`). */
  unreportedTurns: number;
  /** The tasks' time splits, summed. */
  time: TimeSplit;
  /** Of the ended tasks' durationMs. @unit ms */
  duration: Percentiles;
  /** Of each task's input + output tokens. */
  tokensPerTask: Percentiles;
  /** Null when no task was kept. @unit ms */
  bucketMs: number | null;
  buckets: RollupBucket[];
  /** The slowest tools, highest p90 first. */
  tools: RollupTool[];
}
