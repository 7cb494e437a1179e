/**
 * The console's views on a session of 10,000 tasks (issue 27, "Done when"): each view's render time — from the
 * navigation's start until the view's content is in the DOM — and the record API answer it reads, written to
 * e2e/test-results/perf-views.json, which `npm run bench` reports (apps/door/bench/console-perf.ts). Figures, not
 * assertions: what is asserted is that each view shows the whole session's figures (the compare page, that it aligns
 * two of its tasks). Further views join the file as keys of their own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ConsoleRollup } from '@murmur/protocol';
import { expect, REPO, test } from '../support/fixtures.js';
import { type SessionOfTasks, sessionOfTasks } from '../support/session-of-tasks.js';

const TASKS = 10_000;
const FILE = path.join(REPO, 'e2e/test-results/perf-views.json');

function record(view: string, figures: Record<string, number>): void {
  mkdirSync(path.dirname(FILE), { recursive: true });
  const previous = existsSync(FILE) ? (JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(FILE, `${JSON.stringify({ ...previous, sessionTasks: TASKS, [view]: figures }, null, 2)}\n`);
  console.log(`${view} perf: ${JSON.stringify(figures)}`);
}

/** The p50 of `times` answers, after a warm-up. @unit ms */
async function p50(times: number, read: () => Promise<unknown>): Promise<number> {
  await read();
  const took: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await read();
    took.push(performance.now() - started);
  }
  took.sort((a, b) => a - b);
  return Math.round((took[Math.floor(times / 2)] ?? 0) * 10) / 10;
}

test.describe('views on a session of 10,000 tasks', () => {
  let session: SessionOfTasks;

  test.beforeAll(async ({ murmur }) => {
    test.setTimeout(300_000);
    session = await sessionOfTasks(murmur, TASKS);
  });

  test('the rollups page: the rollup’s answer time and the page’s render time', async ({ page, murmur }) => {
    test.setTimeout(300_000);
    const url = `${murmur.consoleUrl}/api/records/sessions/${session.door.sessionId}/rollup`;
    let rollup: ConsoleRollup | null = null;
    const apiP50Ms = await p50(5, async () => {
      rollup = (await (await fetch(url)).json()) as ConsoleRollup;
    });
    expect(rollup!.tasks).toBe(TASKS);
    expect(rollup!.byState).toEqual(session.byState);

    await page.goto(`${murmur.consoleUrl}/#/door/${session.door.address}/rollups`);
    // Every chart's figure with its table rows in the DOM.
    const renderMs = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const check = () => (document.querySelectorAll('figure[data-testid^="chart-"] tbody tr').length > 0 && document.querySelectorAll('figure[data-testid^="chart-"]').length >= 5 ? resolve(performance.now()) : requestAnimationFrame(check));
          check();
        }),
    );
    await expect(page.getByTestId('rollup-tasks')).toHaveText(TASKS.toLocaleString('en-US'));
    record('rollups', { apiP50Ms, renderMs: Math.round(renderMs) });
  });

  test('a task page with its time split and tokens per turn, in that session', async ({ page, murmur }) => {
    test.setTimeout(180_000);
    await page.goto(`${murmur.consoleUrl}/#/door/${session.door.address}/tasks/${session.lastTaskId}`);
    const renderMs = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const check = () => (document.querySelectorAll('[data-testid="task-turn-tokens"] tbody tr').length > 0 ? resolve(performance.now()) : requestAnimationFrame(check));
          check();
        }),
    );
    await expect(page.getByTestId('task-time-split').locator('tbody tr')).toHaveCount(1);
    record('taskTimeAndTokens', { renderMs: Math.round(renderMs) });
  });

  test('the compare page: the session’s first and last tasks side by side', async ({ page, murmur }) => {
    test.setTimeout(180_000);
    await page.goto(`${murmur.consoleUrl}/#/compare/${session.firstTaskId}/${session.lastTaskId}`);
    const renderMs = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const check = () => (document.querySelectorAll('[aria-label="Aligned steps"] > li').length > 0 ? resolve(performance.now()) : requestAnimationFrame(check));
          check();
        }),
    );
    await expect(page.getByRole('list', { name: 'Aligned steps' }).getByRole('listitem').first()).toBeVisible();
    record('compare', { renderMs: Math.round(renderMs) });
  });
});
