// @vitest-environment jsdom (renders components)
import { type ConsoleRollup, taskTimeSplit, turnTokens } from '@murmur/protocol';
import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import ChartFigure from '../src/components/charts/ChartFigure.svelte';
import { readRollup } from '../src/lib/records/records';
import {
  bucketLabel,
  chartTable,
  durationChart,
  slowestToolsChart,
  tasksByStateChart,
  timeSplitChart,
  tokensPerTaskChart,
  turnTokensChart,
} from '../src/lib/rollups/rollup-charts';
import { href, parseRoute } from '../src/lib/routing/routes';
import { useConsoleFetch } from './support/console-fetch';

const rollup: ConsoleRollup = {
  sessionIds: ['ses_1'],
  missing: [],
  filters: { q: '', state: '', contextId: '', since: '' },
  readAt: '2026-12-01T10:01:00.000Z',
  tasks: 3,
  byState: { TASK_STATE_COMPLETED: 2, TASK_STATE_FAILED: 1 },
  turns: 4,
  toolCalls: 2,
  tokens: { input: 300, output: 30, cached: 100 },
  unreportedTurns: 0,
  time: { wallMs: 3000, modelMs: 1000, toolMs: 500, memberMs: 0, inputMs: 1000, otherMs: 500 },
  duration: { count: 3, p50: 900, p90: 1200, p99: 1200, max: 1200 },
  tokensPerTask: { count: 3, p50: 100, p90: 130, p99: 130, max: 130 },
  bucketMs: 1000,
  buckets: [
    {
      start: '2026-12-01T10:00:00.000Z',
      tasks: 2,
      byState: { TASK_STATE_COMPLETED: 1, TASK_STATE_FAILED: 1 },
      duration: { count: 2, p50: 900, p90: 1200 },
      tokens: { input: 200, output: 20, cached: 100 },
    },
    { start: '2026-12-01T10:00:01.000Z', tasks: 0, byState: {}, duration: { count: 0, p50: null, p90: null }, tokens: { input: 0, output: 0, cached: 0 } },
    {
      start: '2026-12-01T10:00:02.000Z',
      tasks: 1,
      byState: { TASK_STATE_COMPLETED: 1 },
      duration: { count: 1, p50: 900, p90: 900 },
      tokens: { input: 100, output: 10, cached: 0 },
    },
  ],
  tools: [{ tool: 'bash', calls: 2, errors: 0, totalMs: 500, p50: 200, p90: 300, max: 300 }],
};

describe('the rollups’ chart data', () => {
  it('tasks by state: a series per state present, in the protocol’s order, a value per bucket', () => {
    const chart = tasksByStateChart(rollup);
    expect(chart.categories).toEqual(['2026-12-01 10:00:00 UTC', '2026-12-01 10:00:01 UTC', '2026-12-01 10:00:02 UTC']);
    expect(chart.series.map((s) => s.values)).toEqual([
      [1, 0, 1],
      [1, 0, 0],
    ]);
  });

  it('duration percentiles and tokens per task read as words where a bucket has none', () => {
    expect(chartTable(durationChart(rollup)).rows[1]).toEqual(['2026-12-01 10:00:01 UTC', 'none ended', 'none ended']);
    const tokens = tokensPerTaskChart(rollup);
    expect(tokens.series[0]?.values).toEqual([100, null, 100]);
    expect(chartTable(tokens).rows[1]).toEqual(['2026-12-01 10:00:01 UTC', 'no task', 'no task', 'no task']);
    expect(chartTable(slowestToolsChart(rollup)).rows).toEqual([['bash', '200 ms', '300 ms', '300 ms']]);
  });

  it('bucket labels: seconds under a minute, minutes under a day, the date from a day', () => {
    expect(bucketLabel('2026-12-01T10:05:07.000Z', 5000)).toBe('2026-12-01 10:05:07 UTC');
    expect(bucketLabel('2026-12-01T10:05:00.000Z', 300_000)).toBe('2026-12-01 10:05 UTC');
    expect(bucketLabel('2026-12-01T00:00:00.000Z', 86_400_000)).toBe('2026-12-01');
  });

  it('a task’s time split and tokens per turn become a one-bar chart and grouped bars; unreported usage reads so', () => {
    const at = (offsetMs: number) => ({ at: new Date(offsetMs).toISOString(), offsetMs });
    const entries = [
      { kind: 'turn' as const, ...at(0), turn: 1, durationMs: 100, firstTokenMs: null, inputTokens: 50, outputTokens: 5, cachedTokens: 20, stopReason: null },
      {
        kind: 'turn' as const,
        ...at(200),
        turn: 2,
        durationMs: 100,
        firstTokenMs: null,
        inputTokens: null,
        outputTokens: null,
        cachedTokens: null,
        stopReason: null,
      },
    ];
    const split = chartTable(timeSplitChart(taskTimeSplit(entries, 400), 'This task'));
    expect(split.head).toEqual(['Time of', 'Model calls', 'Tool calls', 'Waiting for members', 'Waiting for input', 'Other']);
    expect(split.rows).toEqual([['This task', '200 ms', '0 ms', '0 ms', '0 ms', '200 ms']]);
    expect(chartTable(turnTokensChart(turnTokens(entries))).rows).toEqual([
      ['Turn 1', '50', '5', '20'],
      ['Turn 2', 'not reported', 'not reported', 'not reported'],
    ]);
  });
});

describe('ChartFigure', () => {
  // jsdom has no ResizeObserver, which Layer Cake measures its box with; a box that never reports a size is enough here.
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };

  it('is a figure with a text legend, a focusable image named by its caption and summary, and its data table', () => {
    render(ChartFigure, { props: { data: tasksByStateChart(rollup), caption: 'Tasks by state', summary: '3 tasks.', kind: 'stacked', testId: 'chart' } });
    const figure = screen.getByTestId('chart');
    expect(within(figure).getByRole('img', { name: 'Tasks by state. 3 tasks.' }).getAttribute('tabindex')).toBe('0');
    expect(
      within(figure)
        .getAllByRole('listitem')
        .map((li) => li.textContent?.trim()),
    ).toEqual(['completed', 'failed']);
    const table = within(figure).getByRole('table');
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(within(table).getByRole('rowheader', { name: '2026-12-01 10:00:02 UTC' })).toBeTruthy();
    // At most 2 tasks in a bucket: the value axis reads 0 1 2, each once (it read `0 1 1 2 2` with fractional ticks).
    const valueLabels = [...figure.querySelectorAll('g.axis text')].map((t) => t.textContent ?? '').filter((t) => /^\d+$/.test(t));
    expect(valueLabels).toEqual(['0', '1', '2']);
  });
});

describe('the rollups’ routes and request', () => {
  it('a door’s and a formation’s rollups page keep the tasks table’s query', () => {
    const door = { name: 'rollups', door: '127.0.0.1:4100', query: 'q=kite&state=TASK_STATE_FAILED' } as const;
    expect(href(door)).toBe('#/door/127.0.0.1:4100/rollups?q=kite&state=TASK_STATE_FAILED');
    expect(parseRoute(href(door))).toEqual(door);
    expect(parseRoute('#/formation/team-42/rollups')).toEqual({ name: 'formation-rollups', key: 'team-42' });
    expect(parseRoute('#/door/127.0.0.1:4100/rollups/more')).toMatchObject({ name: 'not-found' });
  });

  it('asks one session’s rollup, or several sessions’, with the filters given', async () => {
    const asked: string[] = [];
    useConsoleFetch(async (url) => {
      asked.push(url);
      return new Response(JSON.stringify(rollup), { status: 200 });
    });
    await readRollup({ sessionId: 'ses_1' }, { q: 'kite', state: 'TASK_STATE_FAILED', since: '2026-12-01T00:00:00Z' });
    await readRollup({ sessionIds: ['ses_1', 'ses_2'] }, { q: '' });
    expect(asked).toEqual([
      '/api/records/sessions/ses_1/rollup?q=kite&state=TASK_STATE_FAILED&since=2026-12-01T00%3A00%3A00Z',
      '/api/records/rollup?sessions=ses_1%2Cses_2',
    ]);
  });
});
