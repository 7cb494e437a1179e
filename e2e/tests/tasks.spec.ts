/** The Tasks table of the session view: ListTasks with filters, page size, pages, the total, and live re-listing. */
import type { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { clientOf, unique } from '../support/capsules.js';
import { openDoor } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

const TOTAL = 12;

function tasksTable(page: Page) {
  return page.getByRole('table', { name: 'Tasks' });
}

/** Body rows of the Tasks table (the header row has column headers, not cells). */
function taskRows(page: Page) {
  return tasksTable(page)
    .getByRole('row')
    .filter({ has: page.getByRole('cell') });
}

function pager(page: Page) {
  return page.getByRole('navigation', { name: 'Task pages' });
}

test.describe('tasks table', () => {
  let door: Door;
  let client: MurmurClient;
  let sharedContext: string;
  const failedIds: string[] = [];

  test.beforeAll(async ({ murmur }) => {
    door = await murmur.startDoor('hello');
    client = clientOf(door);
    // 12 tasks, settled one by one (the hello capsule queues): 4 share a context, 2 fail ("break").
    const first = await client.sendText(unique('first in the shared context'));
    sharedContext = first.contextId;
    for (let i = 0; i < 3; i++) await client.sendText(unique(`shared context ${i}`), { contextId: sharedContext });
    for (let i = 0; i < 2; i++) failedIds.push((await client.sendText(unique(`please break ${i}`))).id);
    for (let i = 0; i < TOTAL - 6; i++) await client.sendText(unique(`filler ${i}`));
    const listed = await client.listTasks({ pageSize: 50 });
    expect(listed.totalSize).toBe(TOTAL);
  });

  test.afterAll(async () => {
    await door?.stop();
  });

  test('lists every task with its total, and pages through them', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const table = tasksTable(page);
    for (const name of ['Task', 'Input', 'State', 'Status message', 'Context', 'Changed']) {
      await expect(table.getByRole('columnheader', { name })).toBeVisible();
    }
    await expect(taskRows(page)).toHaveCount(TOTAL);
    await expect(pager(page)).toContainText(`Page 1 · tasks 1–${TOTAL} of ${TOTAL} in total`);
    await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    // A row: the id links to the task page; the state is labelled in murmur's words, the A2A name in its title.
    const failedRow = taskRows(page).filter({ has: page.getByRole('link', { name: failedIds[0] }) });
    await expect(failedRow.getByText('failed', { exact: true })).toHaveAttribute('title', 'TASK_STATE_FAILED');
    await expect(failedRow.getByRole('cell').nth(4)).toHaveText('the driver failed');

    await page.getByLabel('Page size').selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(pager(page)).toContainText(`Page 1 · tasks 1–10 of ${TOTAL} in total`);
    await expect(taskRows(page)).toHaveCount(10);
    const firstPage = await taskRows(page).getByRole('link').allTextContents();

    await page.getByRole('button', { name: 'Next page' }).click();
    await expect(pager(page)).toContainText(`Page 2 · tasks 11–${TOTAL} of ${TOTAL} in total`);
    await expect(taskRows(page)).toHaveCount(TOTAL - 10);
    await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
    const secondPage = await taskRows(page).getByRole('link').allTextContents();
    expect(new Set([...firstPage, ...secondPage]).size).toBe(TOTAL);

    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect(pager(page)).toContainText(`Page 1 · tasks 1–10 of ${TOTAL} in total`);
    await expect(taskRows(page).getByRole('link')).toHaveText(firstPage);
    await expect(page.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await page.screenshot({ path: test.info().outputPath('tasks-table.png'), fullPage: true });
  });

  test('filters by state and by context, and clears the filters', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    await expect(taskRows(page)).toHaveCount(TOTAL);

    await page.getByLabel('Filter by state').selectOption({ label: 'failed' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(pager(page)).toContainText('Page 1 · tasks 1–2 of 2 in total');
    expect((await taskRows(page).getByRole('link').allTextContents()).sort()).toEqual([...failedIds].sort());
    await expect(taskRows(page).getByText('failed', { exact: true })).toHaveCount(2);

    await page.getByLabel('Filter by state').selectOption({ label: 'any state' });
    await page.getByLabel('Filter by context id').fill(sharedContext);
    await page.getByLabel('Filter by context id').press('Enter');
    await expect(pager(page)).toContainText('Page 1 · tasks 1–4 of 4 in total');
    await expect(taskRows(page)).toHaveCount(4);
    for (const row of await taskRows(page).all()) await expect(row.getByRole('cell').nth(5)).toHaveText(sharedContext);

    // Both filters at once: none of the shared context's tasks failed.
    await page.getByLabel('Filter by state').selectOption({ label: 'failed' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(tasksTable(page).getByRole('cell', { name: 'No tasks match.' })).toBeVisible();
    await expect(pager(page)).toContainText('Page 1 of 0 in total');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect(page.getByLabel('Filter by context id')).toHaveValue('');
    await expect(taskRows(page)).toHaveCount(TOTAL);
    await expect(pager(page)).toContainText(`of ${TOTAL} in total`);
  });

  test('re-lists live: a task started elsewhere appears without a refresh', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    await expect(pager(page)).toContainText(`of ${TOTAL} in total`);

    const text = unique('started behind the console');
    const task = await client.sendText(text, { returnImmediately: true });
    const row = taskRows(page).filter({ has: page.getByRole('link', { name: task.id }) });
    await expect(row).toHaveCount(1);
    await expect(pager(page)).toContainText(`of ${TOTAL + 1} in total`);
    // …and follows it to its end.
    await expect(row.getByText('completed', { exact: true })).toBeVisible();
    await expect(row.getByRole('cell').nth(4)).toHaveText('task completed');
  });

  test('the pager label changes together with its rows, not a round trip before', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    await page.getByLabel('Page size').selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(pager(page)).toContainText('Page 1 · tasks 1–10 of ');
    const firstPage = await taskRows(page).getByRole('link').allTextContents();

    // The next page's ListTasks is held back a while: until it answers, label and rows both still show page 1.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/door/**', async (route) => {
      if ((route.request().postData() ?? '').includes('"pageToken"')) await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect(page.getByRole('table', { name: 'Tasks' })).toHaveAttribute('aria-busy', 'true');
    await expect(pager(page)).toContainText('Page 1 · tasks 1–10 of ');
    await expect(taskRows(page).getByRole('link')).toHaveText(firstPage);
    release();
    await expect(pager(page)).toContainText('Page 2 · tasks 11–');
    expect(await taskRows(page).getByRole('link').allTextContents()).not.toEqual(firstPage);
  });
});
