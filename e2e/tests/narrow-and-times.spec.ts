/** A phone-width window (390 px) fits every page; exact times (local or UTC) are on the page on demand. */
import type { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { clientOf } from '../support/capsules.js';
import { openDoor } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

/** The page's width beyond the window, and the widest elements that stick out (for the failure message). */
async function overflow(page: Page): Promise<{ extra: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // Elements sticking out, except inside a box that scrolls sideways on its own (the tables' wrappers, the trace).
    const clipped = (el: Element) => el.parentElement?.closest('.table-wrap, .virtual-viewport, [role="treegrid"], pre') != null;
    const culprits = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 1 && !clipped(el))
      .slice(-5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`);
    return { extra: document.documentElement.scrollWidth - width, culprits };
  });
}

test.describe('narrow window and exact times', () => {
  let door: Door;
  let client: MurmurClient;
  let taskId: string;

  test.beforeAll(async ({ murmur }) => {
    door = await murmur.startDoor('hello');
    client = clientOf(door);
    taskId = (await client.sendText('What is 2+2?')).id;
  });

  test.afterAll(async () => {
    await door?.stop();
  });

  test('at 390 px no page is wider than the window', async ({ page, murmur }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${murmur.consoleUrl}/#/`);
    await expect(page.getByRole('heading', { name: 'Capsules', level: 1 })).toBeVisible();
    expect(await overflow(page)).toEqual({ extra: 0, culprits: [] });

    await openDoor(page, murmur.consoleUrl, door.address);
    await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('link', { name: taskId })).toBeAttached();
    expect(await overflow(page)).toEqual({ extra: 0, culprits: [] });

    // State and actions first: a task waiting for input shows its state and Reply without a sideways scroll, in the
    // timeline's header, the tasks table and Running now.
    const asking = (await client.sendText('deploy from a phone')).id;
    const inSight = async (locator: ReturnType<Page['locator']>) => {
      await expect(locator).toBeVisible();
      const box = (await locator.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    };
    const timelineHeader = page.locator('.tl-task').filter({ has: page.getByRole('link', { name: asking }) });
    await inSight(timelineHeader.getByRole('button', { name: `Reply to ${asking}` }));
    await inSight(timelineHeader.getByText('input-required', { exact: true }));
    // Nothing drawn over the actions: the header's time moves to its second line, beside what was asked.
    const replyBox = (await timelineHeader.getByRole('button', { name: `Reply to ${asking}` }).boundingBox())!;
    for (const part of ['.tl-when', '.tl-what', '.tl-state']) {
      const box = (await timelineHeader.locator(part).boundingBox())!;
      const overlaps =
        replyBox.x < box.x + box.width && box.x < replyBox.x + replyBox.width && replyBox.y < box.y + box.height && box.y < replyBox.y + replyBox.height;
      expect(overlaps, `${part} over Reply`).toBe(false);
    }
    await page.screenshot({ path: test.info().outputPath('session-390.png') });
    const tableRow = page
      .getByRole('table', { name: 'Tasks' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: asking }) });
    await inSight(tableRow.getByText('input-required', { exact: true }));
    await inSight(tableRow.getByRole('checkbox', { name: `Compare ${asking}` }));
    expect(await overflow(page)).toEqual({ extra: 0, culprits: [] });
    await page.goto(`${murmur.consoleUrl}/#/running`);
    await inSight(page.getByRole('table', { name: 'Waiting for input' }).getByRole('button', { name: `Reply to ${asking}` }));
    expect(await overflow(page)).toEqual({ extra: 0, culprits: [] });
    await client.reply(asking, 'main');

    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${taskId}`);
    await expect(page.getByRole('heading', { name: `Task ${taskId}`, level: 1 })).toBeVisible();
    expect(await overflow(page)).toEqual({ extra: 0, culprits: [] });

    const other = (await client.sendText('What is 3+3?')).id;
    await page.goto(`${murmur.consoleUrl}/#/compare/${taskId}/${other}`);
    await expect(page.getByRole('list', { name: 'Aligned steps' })).toBeVisible();
    expect(await overflow(page)).toEqual({ extra: 0, culprits: [] });
  });

  test('Times: relative, local time or UTC, on the page and kept for the next visit', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const row = page
      .getByRole('table', { name: 'Tasks' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: taskId }) });
    const changed = row.getByRole('cell').nth(6);
    await expect(changed).toHaveText(/ago|just now/);
    const task = await client.getTask(taskId);
    const at = new Date(task.status.timestamp!);

    await page.getByLabel('Times').selectOption({ label: 'UTC' });
    await expect(changed).toHaveText(`${at.toISOString().replace('T', ' ').replace('Z', '')} UTC`);

    await page.getByLabel('Times').selectOption({ label: 'local time' });
    const local = await page.evaluate((iso) => {
      const d = new Date(iso);
      const p = (n: number, w = 2) => String(n).padStart(w, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
    }, at.toISOString());
    await expect(changed).toHaveText(`${local} local`);

    await page.reload();
    await expect(page.getByLabel('Times')).toHaveValue('local');
    await expect(changed).toHaveText(`${local} local`);
    await page.getByLabel('Times').selectOption({ label: 'relative' });
    await expect(changed).toHaveText(/ago|just now/);
  });
});
