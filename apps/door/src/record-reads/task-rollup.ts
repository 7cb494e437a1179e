import {
  type ConsoleRollup,
  ROLLUP_BUCKET_WIDTHS_MS,
  ROLLUP_BUCKETS_MAX,
  ROLLUP_OTHER_TOOLS,
  ROLLUP_TOOL_NAMES_MAX,
  ROLLUP_TOOLS_SHOWN,
  type RollupFilters,
  type RollupTool,
  type TaskRecordEntry,
  type TaskRecordSummary,
  type TaskState,
  TIME_SPLIT_PARTS,
  type TimeSplit,
  type TokenCounts,
  taskTimeSplit,
} from '@murmur/protocol';
import { LogHistogram } from './log-histogram.js';

/** One task to roll up: what it reads of its summary, and its entries read when asked (one task's at a time). */
export interface RollupTask {
  summary: Pick<TaskRecordSummary, 'createdAt' | 'state' | 'turns' | 'toolCalls' | 'durationMs'>;
  entries(): Promise<readonly TaskRecordEntry[]>;
}

export interface RollupContext {
  sessionIds: string[];
  missing: string[];
  filters: RollupFilters;
  /** When the records were read: a running task's wall time ends there. */
  readAtMs: number;
}

interface BucketAcc {
  tasks: number;
  byState: Partial<Record<TaskState, number>>;
  duration: LogHistogram;
  tokens: TokenCounts;
}

interface ToolAcc {
  calls: number;
  errors: number;
  totalMs: number;
  durations: LogHistogram;
}

const noTokens = (): TokenCounts => ({ input: 0, output: 0, cached: 0 });
const bump = (counts: Partial<Record<TaskState, number>>, state: TaskState) => {
  counts[state] = (counts[state] ?? 0) + 1;
};

/** The smallest width of ROLLUP_BUCKET_WIDTHS_MS giving at most ROLLUP_BUCKETS_MAX buckets, aligned to the epoch. */
export function bucketsFor(firstMs: number, lastMs: number): { bucketMs: number; startMs: number; count: number } {
  for (const width of ROLLUP_BUCKET_WIDTHS_MS) {
    const startMs = Math.floor(firstMs / width) * width;
    const count = Math.floor(lastMs / width) - Math.floor(firstMs / width) + 1;
    if (count <= ROLLUP_BUCKETS_MAX || width === ROLLUP_BUCKET_WIDTHS_MS.at(-1))
      return { bucketMs: width, startMs, count: Math.min(count, ROLLUP_BUCKETS_MAX) };
  }
  throw new Error('unreachable: the widths are not empty');
}

/**
 * The rollup of `tasks` (docs/console.md, "Where the time and the tokens went"): totals, the tasks over time, the
 * percentiles of durations and tokens per task, and the slowest tools. Two passes over the summaries (the range,
 * then the figures), each task's entries read once; what it keeps is bounded whatever the number of tasks.
 */
export async function rollupTasks(tasks: readonly RollupTask[], context: RollupContext): Promise<ConsoleRollup> {
  let firstMs = Number.POSITIVE_INFINITY;
  let lastMs = Number.NEGATIVE_INFINITY;
  for (const { summary } of tasks) {
    const ms = Date.parse(summary.createdAt);
    if (ms < firstMs) firstMs = ms;
    if (ms > lastMs) lastMs = ms;
  }
  const range = tasks.length > 0 ? bucketsFor(firstMs, lastMs) : null;
  const buckets: BucketAcc[] = Array.from({ length: range?.count ?? 0 }, () => ({ tasks: 0, byState: {}, duration: new LogHistogram(), tokens: noTokens() }));
  const byState: Partial<Record<TaskState, number>> = {};
  const tokens = noTokens();
  const time: TimeSplit = { wallMs: 0, modelMs: 0, toolMs: 0, memberMs: 0, inputMs: 0, otherMs: 0 };
  const duration = new LogHistogram();
  const tokensPerTask = new LogHistogram();
  const tools = new Map<string, ToolAcc>();
  let turns = 0;
  let toolCalls = 0;
  let unreportedTurns = 0;

  for (const task of tasks) {
    const { summary } = task;
    const createdMs = Date.parse(summary.createdAt);
    const bucket = range ? buckets[Math.min(buckets.length - 1, Math.floor((createdMs - range.startMs) / range.bucketMs))] : undefined;
    bump(byState, summary.state);
    turns += summary.turns;
    toolCalls += summary.toolCalls;
    if (bucket) {
      bucket.tasks += 1;
      bump(bucket.byState, summary.state);
    }
    if (summary.durationMs !== null) {
      duration.add(summary.durationMs);
      bucket?.duration.add(summary.durationMs);
    }
    const entries = await task.entries();
    const own = noTokens();
    for (const entry of entries) {
      if (entry.kind === 'turn') {
        if (entry.inputTokens === null && entry.outputTokens === null && entry.cachedTokens === null) unreportedTurns += 1;
        own.input += entry.inputTokens ?? 0;
        own.output += entry.outputTokens ?? 0;
        own.cached += entry.cachedTokens ?? 0;
      } else if (entry.kind === 'tool-call') {
        const name = tools.has(entry.tool) || tools.size < ROLLUP_TOOL_NAMES_MAX ? entry.tool : ROLLUP_OTHER_TOOLS;
        const acc = tools.get(name) ?? { calls: 0, errors: 0, totalMs: 0, durations: new LogHistogram() };
        tools.set(name, acc);
        acc.calls += 1;
        if (entry.status === 'error') acc.errors += 1;
        acc.totalMs += entry.durationMs ?? 0;
        if (entry.durationMs !== null) acc.durations.add(entry.durationMs);
      }
    }
    for (const key of ['input', 'output', 'cached'] as const) {
      tokens[key] += own[key];
      if (bucket) bucket.tokens[key] += own[key];
    }
    tokensPerTask.add(own.input + own.output);
    const split = taskTimeSplit(entries, summary.durationMs ?? Math.max(0, context.readAtMs - createdMs));
    time.wallMs += split.wallMs;
    for (const part of TIME_SPLIT_PARTS) time[part] += split[part];
  }

  const slowest: RollupTool[] = [...tools].map(([tool, acc]) => ({
    tool,
    calls: acc.calls,
    errors: acc.errors,
    totalMs: acc.totalMs,
    p50: acc.durations.percentile(50),
    p90: acc.durations.percentile(90),
    max: acc.durations.max,
  }));
  slowest.sort((a, b) => (b.p90 ?? -1) - (a.p90 ?? -1) || b.totalMs - a.totalMs || a.tool.localeCompare(b.tool));

  return {
    sessionIds: context.sessionIds,
    missing: context.missing,
    filters: context.filters,
    readAt: new Date(context.readAtMs).toISOString(),
    tasks: tasks.length,
    byState,
    turns,
    toolCalls,
    tokens,
    unreportedTurns,
    time,
    duration: duration.summary(),
    tokensPerTask: tokensPerTask.summary(),
    bucketMs: range?.bucketMs ?? null,
    buckets: buckets.map((b, i) => ({
      start: new Date((range?.startMs ?? 0) + i * (range?.bucketMs ?? 0)).toISOString(),
      tasks: b.tasks,
      byState: b.byState,
      duration: { count: b.duration.count, p50: b.duration.percentile(50), p90: b.duration.percentile(90) },
      tokens: b.tokens,
    })),
    tools: slowest.slice(0, ROLLUP_TOOLS_SHOWN),
  };
}
