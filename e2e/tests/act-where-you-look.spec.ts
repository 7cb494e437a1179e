/**
 * Act where you look (issue 14): Reply and Cancel on the session timeline's input-required and running task headers,
 * and a "needs input" count per session on the capsules page.
 */
import type { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { type Capsule, clientOf, makeCapsule, unique } from '../support/capsules.js';
import { openDoor, timelineOf } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

/** The task header row of `taskId` in the session timeline. */
function header(page: Page, door: Door, taskId: string) {
  return timelineOf(page, door)
    .locator('.tl-task')
    .filter({ has: page.getByRole('link', { name: taskId }) });
}

test.describe('act where you look', () => {
  let capsule: Capsule;
  let door: Door;
  let client: MurmurClient;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({
      name: 'act-here',
      rules: [
        { match: '^deploy', turns: [{ ask: 'Which branch?' }, { answer: 'deployed {{reply}}' }] },
        { match: '^slow', turns: [{ sleep_ms: 60_000, answer: 'slept' }] },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
    client = clientOf(door);
  });

  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('Reply on an input-required header answers the task; Cancel on a running header cancels it', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const asking = (await client.sendText(unique('deploy please'))).id;
    const row = header(page, door, asking);
    await expect(row.getByText('input-required', { exact: true }).first()).toBeVisible();
    await row.getByRole('button', { name: `Reply to ${asking}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Reply to the task' });
    await expect(dialog).toContainText('Which branch?');
    await dialog.getByLabel('Reply').fill('main');
    await dialog.getByRole('button', { name: 'Send reply' }).click();
    await expect(dialog).toBeHidden();
    await expect(row.getByText('completed', { exact: true }).first()).toBeVisible();
    await expect(timelineOf(page, door).locator('.tl-artifact').filter({ hasText: 'deployed main' })).toHaveCount(1);
    await expect(row.getByRole('button', { name: `Reply to ${asking}` })).toHaveCount(0);
    await expect(row.getByRole('button', { name: `Cancel ${asking}` })).toHaveCount(0);

    const slow = (await client.sendText(unique('slow one'), { returnImmediately: true })).id;
    const slowRow = header(page, door, slow);
    await expect(slowRow.getByRole('button', { name: `Reply to ${slow}` })).toHaveCount(0);
    await slowRow.getByRole('button', { name: `Cancel ${slow}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Cancel this task?' });
    await confirm.getByRole('button', { name: 'Yes, cancel the task' }).click();
    await expect(confirm).toBeHidden();
    await expect(slowRow.getByText('canceled', { exact: true }).first()).toBeVisible();
    expect((await client.getTask(slow)).status.state).toBe('TASK_STATE_CANCELED');
  });

  test('at 1280 × 800 the timeline and the tasks table are the page: one-line headers, actions aligned, short ids', async ({ page, murmur, context }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await openDoor(page, murmur.consoleUrl, door.address);
    const asking = (await client.sendText(unique('deploy the long branch name that does not fit'))).id;
    const slow = (await client.sendText(unique('slow one'), { returnImmediately: true })).id;
    const askingRow = header(page, door, asking);
    const slowRow = header(page, door, slow);
    await expect(askingRow.getByRole('button', { name: `Reply to ${asking}` })).toBeVisible();
    await expect(slowRow.getByRole('button', { name: `Cancel ${slow}` })).toBeVisible();

    // One line each (the toggle button is the tallest thing in it), the asked text before the id.
    for (const row of [askingRow, slowRow]) expect((await row.boundingBox())!.height).toBeLessThan(48);
    const asked = (await askingRow.locator('.tl-asked').boundingBox())!;
    const idLink = askingRow.getByRole('link', { name: asking });
    expect(asked.x).toBeLessThan((await idLink.boundingBox())!.x);
    // Reply and Cancel sit in one column: both Cancel buttons end at the same x.
    const cancelA = (await askingRow.getByRole('button', { name: `Cancel ${asking}` }).boundingBox())!;
    const cancelB = (await slowRow.getByRole('button', { name: `Cancel ${slow}` }).boundingBox())!;
    expect(Math.abs(cancelA.x + cancelA.width - (cancelB.x + cancelB.width))).toBeLessThan(1);

    // The id: its prefix and its end in sight, whole in its name, text and title, and copied whole.
    // In sight: `tsk_…` and the last 8 digits, about a third of the whole id's width.
    expect(await idLink.evaluate((a) => a.querySelector('.id-tail')?.textContent)).toBe(asking.slice(-8));
    expect((await idLink.boundingBox())!.width).toBeLessThan(130);
    await expect(idLink).toHaveText(asking);
    await expect(idLink).toHaveAttribute('title', asking);
    await askingRow.getByRole('button', { name: `Copy ${asking}` }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(asking);

    // The tasks table starts above the fold; the agent card is folded away.
    const table = page.getByRole('table', { name: 'Tasks' });
    await expect(table.getByRole('link', { name: asking })).toBeVisible();
    expect((await table.getByRole('row').nth(1).boundingBox())!.y).toBeLessThan(800);
    const card = page.getByRole('region', { name: 'Agent card' });
    await expect(card.getByRole('heading', { name: 'Public card' })).toBeHidden();
    await card.getByText('Agent card', { exact: true }).click();
    await expect(card.getByRole('heading', { name: 'Public card' })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('session-1280x800.png') });

    await client.cancelTask(asking);
    await client.cancelTask(slow);
    await expect(slowRow.getByText('canceled', { exact: true }).first()).toBeVisible();
  });

  test('the capsules page counts the tasks waiting for input per session', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/`);
    const sessions = page.getByRole('table', { name: 'Sessions' });
    const row = sessions.getByRole('row').filter({ has: page.getByRole('link', { name: 'act-here' }) });
    await expect(sessions.getByRole('columnheader', { name: 'Needs input' })).toBeVisible();
    await expect(row.getByRole('cell').nth(1)).toHaveText('0');
    const asking = (await client.sendText(unique('deploy one'))).id;
    // The page refreshes itself: the count appears, and goes, without a reload.
    await expect(row.getByLabel('1 task needs input')).toHaveText('1');
    await client.reply(asking, 'main');
    await expect(row.getByRole('cell').nth(1)).toHaveText('0');
  });
});
