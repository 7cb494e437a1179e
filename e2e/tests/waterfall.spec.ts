/**
 * The waterfall (issue 14): time to first token and tokens per turn from the door's inference records, and the
 * figures for a task with 1,000 tool calls — the record API's page time (p50) and the trace's render time — which
 * join the perf figures in e2e/test-results/perf.json (npm run bench reports them).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { type Door, expect, measuring, REPO, test } from '../support/fixtures.js';

const TOOL_CALLS = 1000;

test.describe('waterfall', () => {
  let capsule: Capsule;
  let door: Door;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({
      name: 'waterfall',
      maxTurns: 4,
      rules: [
        {
          match: '^tokens',
          turns: [
            { text: ['looking ', 'around'], pace_ms: 60, usage: { input: 120, output: 7 }, tools: [{ tool: 'bash', input: { command: 'echo hi' } }] },
            { text: ['done'], answer: 'done', usage: { input: 200, output: 3 } },
          ],
        },
        // session-status, which the door answers itself: what is measured is the record of 1,000 tool calls, not the
        // sandbox, whose 1,000 bubblewrap starts took about 45 s of this test (the sandbox's cost is the bench's).
        { match: '^many', turns: [{ tools: Array.from({ length: TOOL_CALLS }, () => ({ tool: 'session-status', input: {} })) }, { answer: 'ran them all' }] },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
  });

  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('each turn shows its time to first token, its tokens and why it stopped; the record sums the tokens', async ({ page, murmur }) => {
    const task = await clientOf(door).sendText('tokens please');
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${task.id}`);
    const record = page.getByRole('table', { name: 'Task record' });
    const turn1 = record.getByRole('row').filter({ hasText: 'Turn 1' });
    await expect(turn1).toContainText(/first token \d+ ms/);
    await expect(turn1).toContainText('120 in · 7 out tokens');
    await expect(turn1).toContainText('tool_use');
    await expect(record.getByRole('row').filter({ hasText: 'Turn 2' })).toContainText('200 in · 3 out tokens');
    await expect(page.getByText('320 in · 10 out', { exact: true })).toBeVisible();
    await expect(page.getByText(/^after \d+ ms$/)).toBeVisible();
  });

  test(`a task with ${TOOL_CALLS} tool calls: the record API's page time and the trace's render time`, async ({ page, murmur }) => {
    test.setTimeout(180_000);
    const task = await clientOf(door).sendText('many calls', { returnImmediately: false });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');

    // The record API: the first page of 1,000 entries, asked 21 times after a warm-up; p50. Outside `measured` the
    // figure is recorded nowhere, so the page is asked for once (its entries checked) and the figure is NaN.
    const url = `${murmur.consoleUrl}/api/records/tasks/${task.id}?limit=1000`;
    expect(((await (await fetch(url)).json()) as { entries: unknown[] }).entries.length).toBe(1000);
    const times: number[] = [];
    for (let i = 0; i < (measuring() ? 21 : 0); i++) {
      const started = performance.now();
      const body = (await (await fetch(url)).json()) as { entries: unknown[] };
      times.push(performance.now() - started);
      expect(body.entries.length).toBe(1000);
    }
    times.sort((a, b) => a - b);
    const pageP50Ms = times.length > 0 ? Math.round(times[10] * 10) / 10 : Number.NaN;

    // The trace (docs/console.md, "The task page"): from the navigation's start until its grid holds a row for every
    // span (the task, its two turns with their model calls and tool calls, its marks); rows are virtualized, so this is
    // the record drawn whole, not a thousand rows in the DOM.
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${task.id}`);
    const renderMs = await page.evaluate(
      (count) =>
        new Promise<number>((resolve) => {
          const check = () =>
            Number(document.querySelector('[data-testid="trace-grid"]')?.getAttribute('aria-rowcount')) > count
              ? resolve(performance.now())
              : requestAnimationFrame(check);
          check();
        }),
      TOOL_CALLS,
    );
    // The record's table shows its rows 200 at a time; all of them on request.
    const toolRows = page.getByRole('table', { name: 'Task record' }).locator('tbody .what', { hasText: /^Tool call / });
    await expect(toolRows).toHaveCount(198);
    await page.getByRole('button', { name: /^Show all [\d,]+ rows$/ }).click();
    await expect(toolRows).toHaveCount(TOOL_CALLS);

    const figures = { toolCalls: TOOL_CALLS, recordApiPageP50Ms: pageP50Ms, traceRenderMs: Math.round(renderMs) };
    if (measuring()) {
      const file = path.join(REPO, 'e2e/test-results/perf.json');
      mkdirSync(path.dirname(file), { recursive: true });
      const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
      writeFileSync(file, `${JSON.stringify({ ...previous, record1000: figures }, null, 2)}\n`);
    }
    console.log(`record perf: ${JSON.stringify(figures)}`);
  });
});
