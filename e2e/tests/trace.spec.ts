/**
 * The task page is its trace (issue 37; docs/console.md, "The task page"): on one real script door whose lifecycle
 * and hooks make the governors happen, a task's trace shows every kind of span its record holds — turns and their
 * model calls, tool calls, a call the on_tool_call hook denied, the wait for input and the reply, keep_working's
 * nudge, the done check, the reopen and its attempts, the on_task_end hook's artifact, the spend refusal — walked by
 * keyboard as a treegrid, selected into the detail panel, zoomed and panned; axe finds nothing serious at 1280×800
 * and 390×844, light and dark. A finished task's record is read once.
 */
import type { Locator, Page } from '@playwright/test';
import { axeViolations, FAILING_IMPACTS } from '../support/axe.js';
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { type Door, expect, test } from '../support/fixtures.js';

/** The reviewer reopens attempt 1 once, then hands in an artifact; the policy hook denies any `rm -rf`. */
const HOOKS = {
  on_tool_call: [{ name: 'no-rm', command: "if grep -q 'rm -rf'; then echo 'no rm today'; exit 2; fi" }],
  on_task_end: [
    { name: 'reviewer', command: `if grep -q '"attempt":1,'; then echo '{"reopen": "Once more."}'; else echo '{"artifact": {"reviewed": true}}'; fi` },
  ],
};

/** Every row's text as the keyboard walks the grid from its first row to its last (rows are virtualized). */
async function walk(page: Page, grid: Locator): Promise<string[]> {
  await grid.focus();
  await page.keyboard.press('Home');
  const seen: string[] = [];
  for (;;) {
    const id = await grid.getAttribute('aria-activedescendant');
    seen.push(((await page.locator(`[id="${id}"]`).textContent()) ?? '').replace(/\s+/g, ' ').trim());
    await page.keyboard.press('ArrowDown');
    if ((await grid.getAttribute('aria-activedescendant')) === id) return seen;
  }
}

test.describe('the task page’s trace', () => {
  let capsule: Capsule;
  let door: Door;
  let governed: string;
  let refused: string;
  let plain: string;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({
      name: 'traced',
      maxTurns: 12,
      lifecycle: {
        task_acceptance: 'queue',
        keep_working: { limit: 1, message: 'Look again.' },
        done_check: { command: 'true', limit: 1 },
        max_task_reopens: 1,
      },
      hooks: HOOKS,
      inference: { max_session_tokens: 20_000 },
      rules: [
        {
          match: '^governed',
          turns: [
            {
              usage: { input: 100, output: 10 },
              tools: [
                { tool: 'session-status', input: {} },
                { tool: 'bash', input: { command: 'rm -rf /tmp/nothing' } },
              ],
            },
            { usage: { input: 120, output: 10 }, ask: 'Which colour?' },
            { usage: { input: 140, output: 10 }, answer: 'first: {{reply}}' },
            { usage: { input: 160, output: 10 }, answer: 'second' },
            { usage: { input: 180, output: 10 }, answer: 'third' },
            { usage: { input: 200, output: 10 }, answer: 'fourth' },
          ],
        },
        { match: '^spend', turns: [{ usage: { input: 30_000, output: 10 }, text: ['big'] }, { answer: 'never' }] },
      ],
      defaultTurns: [{ answer: 'plain' }],
    });
    door = await murmur.startDoor(capsule.dir);
    const client = clientOf(door);
    governed = (await client.sendText('governed task', { returnImmediately: true })).id;
    await expect.poll(async () => (await client.getTask(governed)).status.state, { timeout: 30_000 }).toBe('TASK_STATE_INPUT_REQUIRED');
    await client.reply(governed, 'red');
    await expect.poll(async () => (await client.getTask(governed)).status.state, { timeout: 30_000 }).toBe('TASK_STATE_COMPLETED');
    // The driver reports no usage for this one; the spend refusal last, as the session's spend then refuses every call.
    plain = (await client.sendText('plain task', { returnImmediately: false })).id;
    refused = (await client.sendText('spend it all', { returnImmediately: false })).id;
  });
  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('every kind of span, walked by keyboard; the detail panel; the record read once', async ({ page, murmur }) => {
    const recordReads: string[] = [];
    page.on('request', (request) => {
      if (new RegExp(`/records/tasks/${governed}(\\?|$)`).test(request.url())) recordReads.push(request.url());
    });
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${governed}`);
    await expect(page.getByRole('region', { name: 'Input' })).toContainText('governed task');
    await expect(page.getByRole('region', { name: 'Outcome' })).toContainText('third');
    const grid = page.getByRole('treegrid', { name: `Trace of task ${governed}` });
    const rows = await walk(page, grid);
    const has = (pattern: RegExp) =>
      expect(
        rows.some((r) => pattern.test(r)),
        `a row reads ${pattern}: ${rows.join(' | ')}`,
      ).toBe(true);
    has(/^▾ task Task tsk_/);
    has(/attempt Attempt 1/);
    has(/attempt Attempt 2/);
    has(/turn Turn 1/);
    has(/model Model call · tool_use/);
    has(/tool Tool call session-status/);
    has(/refused Tool call bash denied by no-rm/);
    has(/input Waiting for input/);
    has(/governor keep_working nudge after turn \d/);
    has(/governor Done check: passed/);
    has(/event Reopened by reviewer: attempt 2/);
    has(/hook Hook reviewer: artifact/);
    has(/event Answer/);
    has(/event Ended completed/);
    // "At" values never wrap: every row is one line high.
    for (const cell of await grid.locator('[role="row"][aria-level] .at').all()) expect((await cell.boundingBox())?.height ?? 0).toBeLessThan(24);

    // ← collapses the task's first attempt, → expands it; Enter selects the row into the detail panel.
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    const attempt = page.locator(`[id="${await grid.getAttribute('aria-activedescendant')}"]`);
    await expect(attempt).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('ArrowLeft');
    await expect(attempt).toHaveAttribute('aria-expanded', 'false');
    await page.keyboard.press('ArrowRight');
    await expect(attempt).toHaveAttribute('aria-expanded', 'true');
    // The denied call: its hook's reason in the detail.
    await grid.getByRole('row', { name: /denied by no-rm/ }).click();
    const detail = page.getByRole('region', { name: /denied by no-rm/ });
    await expect(detail).toContainText('no rm today');
    // The input wait: the question and the operator's reply.
    await grid.getByRole('row', { name: /Waiting for input/ }).click();
    await expect(page.getByRole('region', { name: /Waiting for input/ })).toContainText('Which colour?');
    await expect(page.getByRole('region', { name: /Waiting for input/ })).toContainText('red');
    // A model call: its tokens as reported.
    await grid
      .getByRole('row', { name: /Model call/ })
      .first()
      .click();
    await expect(page.getByRole('region', { name: /Model call/ })).toContainText('100');
    await page.keyboard.press('Enter');

    // The door's answer (GetTask) is in and the page knows the task ended; by now, after the walk above, the finished
    // task's record was read once — not again for each answer that came while the first read was under way.
    await expect(page.getByRole('region', { name: 'Status', exact: true })).toContainText('TASK_STATE_COMPLETED');
    await expect(page.getByRole('region', { name: 'Live' })).toContainText('This task has ended');
    expect(recordReads).toHaveLength(1);
  });

  test('zoom and pan by the toolbar, the keyboard and Ctrl+wheel; zero-length spans stay visible', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${governed}`);
    const grid = page.getByRole('treegrid', { name: `Trace of task ${governed}` });
    const window = page.getByTestId('trace-window');
    await expect(window).toContainText('Showing +0 ms to');
    const modelBar = grid.getByRole('row', { name: /task Task tsk_/ }).locator('.bar');
    const before = (await modelBar.boundingBox())?.width ?? 0;
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => (await modelBar.boundingBox())?.width ?? 0).toBeGreaterThan(before * 1.4);
    const zoomed = await window.textContent();
    await page.getByRole('button', { name: 'Later' }).click();
    await expect(window).not.toHaveText(zoomed ?? '');
    await grid.focus();
    await page.keyboard.press('0');
    await expect(window).toContainText('Showing +0 ms to');
    await page.keyboard.press('+');
    await page.keyboard.press('Shift+ArrowRight');
    await expect(window).not.toContainText('Showing +0 ms to');
    await page.keyboard.press('0');
    // Ctrl+wheel over the bars zooms in at the pointer.
    const box = (await grid.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -400);
    await page.keyboard.up('Control');
    await expect(window).not.toContainText('Showing +0 ms to');
    await page.getByRole('button', { name: 'Whole task' }).click();
    // An instant (the answer) has a visible mark however long the task.
    const instant = grid.getByRole('row', { name: /event Answer/ }).locator('.bar');
    expect((await instant.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(3);
  });

  test('a spend refusal in the trace; tokens per turn drawn only where reported', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${refused}`);
    const grid = page.getByRole('treegrid', { name: `Trace of task ${refused}` });
    const rows = await walk(page, grid);
    expect(
      rows.some((r) => /refused Spend refused by the session ceiling/.test(r)),
      rows.join(' | '),
    ).toBe(true);
    await expect(page.getByTestId('task-turn-tokens').locator('tbody tr').first()).toBeVisible();

    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${plain}`);
    await expect(page.getByTestId('task-turn-tokens-none')).toContainText('not reported');
    await expect(page.getByTestId('task-turn-tokens')).toHaveCount(0);
    await expect(page.locator('dt:has-text("Tokens") + dd')).toHaveText('not reported');
  });

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      test(`axe: no serious or critical violation at ${width}×${height}, ${colorScheme}, a span selected`, async ({ page, murmur }) => {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme });
        await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${governed}`);
        const grid = page.getByRole('treegrid', { name: `Trace of task ${governed}` });
        await grid
          .getByRole('row', { name: /Model call/ })
          .first()
          .click();
        await expect(page.getByRole('region', { name: /Model call/ })).toBeVisible();
        await expect(page.getByRole('table', { name: 'Task record' })).toBeVisible();
        expect(await axeViolations(page, FAILING_IMPACTS)).toEqual([]);
      });
    }
  }
});
