/**
 * Find and share (issue 14): search through the record API, the tasks table's filters and page in the URL, a link to
 * one entry of a task's record, and a whole session's record exported as NDJSON.
 */
import { readFileSync } from 'node:fs';
import type { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { type Capsule, clientOf, makeCapsule, unique } from '../support/capsules.js';
import { openDoor } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

function taskLinks(page: Page) {
  return page.getByRole('table', { name: 'Tasks' }).getByRole('link');
}

function pager(page: Page) {
  return page.getByRole('navigation', { name: 'Task pages' });
}

test.describe('find and share', () => {
  let capsule: Capsule;
  let door: Door;
  let client: MurmurClient;
  let grass: string;
  let sky: string;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({
      name: 'find-share',
      rules: [
        { match: '^sky', turns: [{ thinking: ['looking up'], text: ['blue'] }, { answer: 'ultramarine' }] },
        { match: '^grass', turns: [{ tools: [{ tool: 'bash', input: { command: 'echo green' } }] }, { answer: 'viridian {{tool.stdout}}' }] },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
    client = clientOf(door);
    sky = (await client.sendText(unique('sky colour'))).id;
    grass = (await client.sendText(unique('grass colour'))).id;
    for (let i = 0; i < 10; i++) await client.sendText(unique(`sky filler ${i}`));
  });

  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('search finds a task by a word of its answer, and the search is in the URL', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    await page.getByLabel('Search tasks').fill('viridian');
    await page.getByLabel('Search tasks').press('Enter');
    await expect(pager(page)).toContainText('Found “viridian” · Page 1 · tasks 1–1 of 1 in total');
    await expect(taskLinks(page)).toHaveText([grass]);
    await expect(page).toHaveURL(/\?q=viridian$/);

    // The link opens the same search in a new tab.
    const other = await page.context().newPage();
    await other.goto(page.url());
    await expect(other.getByLabel('Search tasks')).toHaveValue('viridian');
    await expect(taskLinks(other)).toHaveText([grass]);
    await other.close();
  });

  test('a deep link opens a filtered page: its filters, its page number and its rows', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    await page.getByLabel('Filter by state').selectOption({ label: 'completed' });
    await page.getByLabel('Page size').selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(pager(page)).toContainText('Page 1 · tasks 1–10 of 12 in total');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect(pager(page)).toContainText('Page 2 · tasks 11–12 of 12 in total');
    await expect(page).toHaveURL(/state=TASK_STATE_COMPLETED&size=10&page=/);
    const rows = await taskLinks(page).allTextContents();
    const link = page.url();

    const other = await page.context().newPage();
    await other.goto(link);
    await expect(pager(other)).toContainText('Page 2 · tasks 11–12 of 12 in total');
    await expect(taskLinks(other)).toHaveText(rows);
    await expect(other.getByLabel('Filter by state')).toHaveValue('TASK_STATE_COMPLETED');
    await other.getByRole('button', { name: 'Previous page' }).click();
    await expect(pager(other)).toContainText('Page 1 · tasks 1–10 of 12 in total');
    await other.close();
  });

  test('a link to one entry of a task record scrolls to it and highlights it', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${grass}`);
    const record = page.getByRole('table', { name: 'Task record' });
    const toolLink = record.getByRole('link', { name: /^\+[^,]+, link to entry \d+: Tool call bash/ });
    await toolLink.click();
    await expect(page).toHaveURL(/\?entry=\d+$/);
    const link = page.url();

    const other = await page.context().newPage();
    await other.setViewportSize({ width: 1000, height: 400 });
    await other.goto(link);
    const linked = other.getByRole('table', { name: 'Task record' }).locator('tr[aria-current="true"]');
    await expect(linked).toHaveCount(1);
    await expect(linked).toContainText('Tool call bash');
    await expect(linked).toBeInViewport();
    await other.close();
  });

  test('a whole session’s record exports as NDJSON that matches GetTask', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export session record (NDJSON)' }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ kind: 'session', sessionId: door.sessionId });
    const tasks = lines.filter((l) => l.kind === 'task');
    expect(tasks).toHaveLength(12);
    const grassLine = tasks.find((t) => t.taskId === grass)!;
    const got = await client.getTask(grass);
    expect(grassLine).toMatchObject({ state: got.status.state, contextId: got.contextId, answer: 'viridian green' });
    expect(lines.filter((l) => l.taskId === sky && l.kind === 'answer')).toEqual([expect.objectContaining({ text: 'ultramarine' })]);
  });
});
