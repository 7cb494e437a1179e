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

/** A task's wall time and how it divides: the parts never overlap and add up to wallMs. @unit ms */
export interface TimeSplit {
  wallMs: number;
  /** Inference calls. */
  modelMs: number;
  /** Tool calls other than call-member, and done checks' commands, outside model calls. */
  toolMs: number;
  /** Waiting for members' answers (each call from its start until its answer came) and for delegations, outside the above. */
  memberMs: number;
  /** From each input request to its reply (or the end), outside the above. */
  inputMs: number;
  /** wallMs less the four parts: the runtime's own work, queueing, the gaps between calls. */
  otherMs: number;
}

export const TIME_SPLIT_PARTS = ['modelMs', 'toolMs', 'memberMs', 'inputMs', 'otherMs'] as const;

/** The parts an instant may belong to, in the order that claims it when several overlap. */
const CLAIMS = ['modelMs', 'toolMs', 'memberMs', 'inputMs'] as const;
type Claim = (typeof CLAIMS)[number];

/** The intervals of a task's wall time each part claims, on the task's axis (offsets from its creation). @unit ms */
function claims(entries: readonly TaskRecordEntry[], wallMs: number): { part: Claim; from: number; to: number }[] {
  const out: { part: Claim; from: number; to: number }[] = [];
  const add = (part: Claim, from: number, length: number | null) => out.push({ part, from, to: from + Math.max(0, length ?? 0) });
  let waitingSince: number | null = null;
  for (const entry of entries) {
    switch (entry.kind) {
      case 'turn':
        add('modelMs', entry.offsetMs, entry.durationMs);
        break;
      case 'tool-call':
        if (entry.tool !== 'call-member') add('toolMs', entry.offsetMs, entry.durationMs);
        else {
          add('memberMs', entry.offsetMs, entry.durationMs);
          // The answer comes with the round's, after the tool call returned: the wait is the call's whole elapsed time.
          const call = entry.memberCall;
          if (call) {
            const from = entry.offsetMs + (Date.parse(call.startedAt) - Date.parse(entry.at));
            add('memberMs', from, call.elapsedMs ?? wallMs - from);
          }
        }
        break;
      case 'done-check':
        add('toolMs', entry.offsetMs, entry.durationMs);
        break;
      case 'delegation':
        add('memberMs', entry.offsetMs, entry.durationMs ?? wallMs - entry.offsetMs);
        break;
      case 'input-required':
        waitingSince ??= entry.offsetMs;
        break;
      case 'reply':
      case 'end':
      case 'input-timeout':
        if (waitingSince !== null) add('inputMs', waitingSince, entry.offsetMs - waitingSince);
        waitingSince = null;
        break;
      // The runtime's own work (a compaction's summary call included) and instants: the rest.
      case 'input':
      case 'answer':
      case 'reopen':
      case 'inference-retry':
      case 'keep-working':
      case 'compaction':
      case 'trimmed':
      case 'spend-refused':
      case 'tool-denied':
      case 'hook':
      case 'harness-start':
      case 'harness-end':
      case 'harness-session-forgotten':
        break;
      default: {
        const unreachable: never = entry;
        throw new TypeError(`unknown record entry ${JSON.stringify(unreachable)}`);
      }
    }
  }
  if (waitingSince !== null) add('inputMs', waitingSince, wallMs - waitingSince);
  return out;
}

/**
 * How a task's wall time divides between model calls, tool calls, members, input and the rest (docs/console.md): each
 * instant of [0, wallMs] counts once, for the first part of CLAIMS whose interval holds it (a member's answer awaited
 * while the caller's next turn runs is model time), so the parts add up to wallMs.
 */
export function taskTimeSplit(entries: readonly TaskRecordEntry[], wallMs: number): TimeSplit {
  const edges: { at: number; part: number; open: 1 | -1 }[] = [];
  for (const c of claims(entries, wallMs)) {
    const from = Math.max(0, c.from);
    const to = Math.min(wallMs, c.to);
    if (to <= from) continue;
    const part = CLAIMS.indexOf(c.part);
    edges.push({ at: from, part, open: 1 }, { at: to, part, open: -1 });
  }
  edges.sort((a, b) => a.at - b.at);
  const open = [0, 0, 0, 0];
  const sums = [0, 0, 0, 0];
  let last = 0;
  for (const edge of edges) {
    const owner = open.findIndex((n) => n > 0);
    if (owner >= 0) sums[owner] = (sums[owner] ?? 0) + (edge.at - last);
    last = edge.at;
    open[edge.part] = (open[edge.part] ?? 0) + edge.open;
  }
  const [modelMs = 0, toolMs = 0, memberMs = 0, inputMs = 0] = sums;
  return { wallMs, modelMs, toolMs, memberMs, inputMs, otherMs: Math.max(0, wallMs - modelMs - toolMs - memberMs - inputMs) };
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
  return entries.flatMap((e) =>
    e.kind === 'turn' ? [{ turn: e.turn, offsetMs: e.offsetMs, input: e.inputTokens, output: e.outputTokens, cached: e.cachedTokens }] : [],
  );
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
