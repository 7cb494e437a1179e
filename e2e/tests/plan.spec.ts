/**
 * A plan on the task's record (issue 25; docs/console.md, "Plans"): a real door of examples/plan answers a report
 * with one submit-plan call of three shell steps; the console's record shows that one tool call with its steps nested
 * under it — indented rows in plan order, each with its status in words, its bar inside the plan's bar, reachable by
 * keyboard from the plan's row.
 */
import { clientOf } from '../support/capsules.js';
import { openDoor } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

test.describe('a plan on the waterfall', () => {
  let door: Door;
  test.beforeAll(async ({ murmur }) => {
    door = await murmur.startDoor('plan');
  });
  test.afterAll(async () => {
    await door?.stop();
  });

  test('the submit-plan call shows its three steps nested under it, in order, passed, within its bar, by keyboard', async ({ page, murmur }) => {
    const task = await clientOf(door).sendText('Write me a host report', { returnImmediately: false });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');

    // Opened from the session's tasks table, as an operator does.
    await openDoor(page, murmur.consoleUrl, door.address);
    await page.getByRole('table', { name: 'Tasks' }).getByRole('link', { name: task.id }).click();
    const record = page.getByRole('table', { name: 'Task record' });
    const rows = record.getByRole('row');
    const plan = rows.filter({ hasText: 'Tool call submit-plan' });
    await expect(plan).toHaveCount(1);
    await expect(page.locator('dt:has-text("Tool calls") + dd')).toHaveText('1');

    // The three steps follow the plan's row, in plan order, each indented one level, its status in words.
    const texts = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('.what')?.textContent ?? ''));
    const at = texts.indexOf('Tool call submit-plan');
    expect(texts.slice(at + 1, at + 4)).toEqual(['Step 1 of 3 "today" · bash', 'Step 2 of 3 "system" · bash', 'Step 3 of 3 "report" · bash']);
    const steps = record.locator('tr.plan-step');
    await expect(steps).toHaveCount(3);
    const planLeft = (await plan.locator('.what').boundingBox())!.x;
    for (let i = 0; i < 3; i++) {
      await expect(steps.nth(i)).toContainText('passed (exit 0)');
      expect((await steps.nth(i).locator('.what').boundingBox())!.x).toBeGreaterThan(planLeft + 10);
    }
    await expect(steps.nth(0)).toContainText('$ date -u +%Y-%m-%d');
    await steps.nth(2).getByText('Output of step report').click();
    await expect(steps.nth(2)).toContainText('# Host report');

    // In the trace, each step's span lies inside the plan's tool call on the task's axis, one after another.
    const trace = page.getByTestId('trace-grid');
    const planBar = await trace.locator('[data-span-kind="tool"]', { hasText: 'submit-plan' }).locator('.bar').boundingBox();
    const stepSpans = trace.locator('[data-span-kind="plan-step"]');
    await expect(stepSpans).toHaveCount(3);
    const stepBars = await Promise.all([0, 1, 2].map((i) => stepSpans.nth(i).locator('.bar').boundingBox()));
    expect(planBar).not.toBeNull();
    let previousLeft = -1;
    for (const bar of stepBars) {
      expect(bar).not.toBeNull();
      expect(bar!.x).toBeGreaterThanOrEqual(planBar!.x - 1);
      expect(bar!.x + bar!.width).toBeLessThanOrEqual(planBar!.x + planBar!.width + 3);
      expect(bar!.x).toBeGreaterThanOrEqual(previousLeft);
      previousLeft = bar!.x;
    }

    // By keyboard: Tab from the plan's link reaches each step's link in order (past the plan's input and output).
    await plan.getByRole('link').focus();
    const reached: string[] = [];
    for (let i = 0; i < 20 && reached.length < 3; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
      if (label.includes(', the plan of Step')) reached.push(label);
    }
    // Each name opens with what the link shows, its offset (axe's label-content-name-mismatch).
    expect(reached.every((label) => /^\+\d/.test(label))).toBe(true);
    expect(reached.map((label) => label.replace(/^\+[^,]+, /, ''))).toEqual([
      'link to entry 3, the plan of Step 1 of 3 "today" · bash',
      'link to entry 3, the plan of Step 2 of 3 "system" · bash',
      'link to entry 3, the plan of Step 3 of 3 "report" · bash',
    ]);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`tasks/${task.id}\\?entry=2$`));
    await expect(plan).toHaveAttribute('aria-current', 'true');
  });
});
