/**
 * The figures of "Where the time and the tokens went" (docs/console.md) as chart data: categories along one axis,
 * named series of values, and the same numbers as the data table behind each chart.
 */
import { type ConsoleRollup, TASK_STATES, type TaskState, type TimeSplit, type TurnTokens } from '@murmur/protocol';
import { stateLabel } from '../tasks/task-states.js';
import { formatDuration } from '../time/time.js';

interface ChartSeries {
  name: string;
  /** One per category; null where there is nothing to draw (not reported, no ended task). */
  values: (number | null)[];
}

export interface ChartData {
  /** The table's first column heading (what a category is). */
  categoryLabel: string;
  categories: string[];
  series: ChartSeries[];
  /** How a value reads in the table and the chart's marks. */
  unit: 'ms' | 'tokens' | 'tasks';
  /** How a null value reads. */
  empty: string;
}

/** A value as the table and a mark's title read it. */
export function formatValue(value: number | null, unit: ChartData['unit'], empty = '—'): string {
  if (value === null) return empty;
  if (unit === 'ms') return formatDuration(value);
  return Math.round(value).toLocaleString('en-US');
}

/** The table behind a chart: a header row, then one row per category. */
export function chartTable(data: ChartData): { head: string[]; rows: string[][] } {
  return {
    head: [data.categoryLabel, ...data.series.map((s) => s.name)],
    rows: data.categories.map((category, i) => [category, ...data.series.map((s) => formatValue(s.values[i] ?? null, data.unit, data.empty))]),
  };
}

const PART_NAMES: Record<keyof Omit<TimeSplit, 'wallMs'>, string> = {
  modelMs: 'Model calls',
  toolMs: 'Tool calls',
  memberMs: 'Waiting for members',
  inputMs: 'Waiting for input',
  otherMs: 'Other',
};

/** A time split as one category (the task, or all the tasks) with a series per part. */
export function timeSplitChart(split: TimeSplit, category: string): ChartData {
  return {
    categoryLabel: 'Time of',
    categories: [category],
    series: (Object.keys(PART_NAMES) as (keyof typeof PART_NAMES)[]).map((part) => ({ name: PART_NAMES[part], values: [split[part]] })),
    unit: 'ms',
    empty: '—',
  };
}

/** Each turn's input, output and cached tokens, side by side. */
export function turnTokensChart(turns: readonly TurnTokens[], maxBars = Number.POSITIVE_INFINITY): ChartData {
  // A long task's turns are grouped into at most maxBars runs of consecutive turns, each the sums of what its turns
  // reported (null when none of them did), so the chart and its table stay readable and cheap to draw.
  const size = Math.max(1, Math.ceil(turns.length / maxBars));
  const groups: TurnTokens[][] = [];
  for (let i = 0; i < turns.length; i += size) groups.push(turns.slice(i, i + size));
  const sum = (group: TurnTokens[], key: 'input' | 'output' | 'cached') =>
    group.some((t) => t[key] !== null) ? group.reduce((a, t) => a + (t[key] ?? 0), 0) : null;
  const name = (group: TurnTokens[]) => (group.length === 1 ? `Turn ${group[0]?.turn}` : `Turns ${group[0]?.turn}–${group[group.length - 1]?.turn}`);
  return {
    categoryLabel: size === 1 ? 'Turn' : `Turns (${size} a bar)`,
    categories: groups.map(name),
    series: [
      { name: 'Input', values: groups.map((g) => sum(g, 'input')) },
      { name: 'Output', values: groups.map((g) => sum(g, 'output')) },
      { name: 'Cached (part of input)', values: groups.map((g) => sum(g, 'cached')) },
    ],
    unit: 'tokens',
    empty: 'not reported',
  };
}

/** A bucket's start as its axis label: the time of day within a day's range, else the date too (UTC). */
export function bucketLabel(start: string, bucketMs: number): string {
  const iso = new Date(start).toISOString();
  if (bucketMs >= 86_400_000) return iso.slice(0, 10);
  return `${iso.slice(0, 10)} ${iso.slice(11, bucketMs < 60_000 ? 19 : 16)} UTC`;
}

const bucketCategories = (rollup: ConsoleRollup) => rollup.buckets.map((b) => bucketLabel(b.start, rollup.bucketMs ?? 1000));

/** The states present in the rollup, in the protocol's order (so a state keeps its place and fill). */
export function rollupStates(rollup: ConsoleRollup): TaskState[] {
  return TASK_STATES.filter((s) => (rollup.byState[s] ?? 0) > 0);
}

export function tasksByStateChart(rollup: ConsoleRollup): ChartData {
  return {
    categoryLabel: 'Created from',
    categories: bucketCategories(rollup),
    series: rollupStates(rollup).map((state) => ({ name: stateLabel(state), values: rollup.buckets.map((b) => b.byState[state] ?? 0) })),
    unit: 'tasks',
    empty: '0',
  };
}

export function durationChart(rollup: ConsoleRollup): ChartData {
  return {
    categoryLabel: 'Created from',
    categories: bucketCategories(rollup),
    series: [
      { name: 'p50', values: rollup.buckets.map((b) => b.duration.p50) },
      { name: 'p90', values: rollup.buckets.map((b) => b.duration.p90) },
    ],
    unit: 'ms',
    empty: 'none ended',
  };
}

/** Tokens per task in each bucket: its tokens divided by its tasks (none where it holds no task). */
export function tokensPerTaskChart(rollup: ConsoleRollup): ChartData {
  const per = (key: 'input' | 'output' | 'cached') => rollup.buckets.map((b) => (b.tasks === 0 ? null : b.tokens[key] / b.tasks));
  return {
    categoryLabel: 'Created from',
    categories: bucketCategories(rollup),
    series: [
      { name: 'Input', values: per('input') },
      { name: 'Output', values: per('output') },
      { name: 'Cached (part of input)', values: per('cached') },
    ],
    unit: 'tokens',
    empty: 'no task',
  };
}

export function slowestToolsChart(rollup: ConsoleRollup): ChartData {
  return {
    categoryLabel: 'Tool',
    categories: rollup.tools.map((t) => t.tool),
    series: [
      { name: 'p50', values: rollup.tools.map((t) => t.p50) },
      { name: 'p90', values: rollup.tools.map((t) => t.p90) },
      { name: 'max', values: rollup.tools.map((t) => t.max) },
    ],
    unit: 'ms',
    empty: 'not timed',
  };
}
