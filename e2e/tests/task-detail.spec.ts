/** Task detail (#/door/<host:port>/tasks/<id>): status, times, artifacts, the input-required reply, and cancel. */
import type { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { clientOf, unique } from '../support/capsules.js';
import { type Door, expect, test } from '../support/fixtures.js';

function statusPanel(page: Page) {
  return page.getByRole('region', { name: 'Status', exact: true });
}

async function openTask(page: Page, consoleUrl: string, door: Door, taskId: string) {
  await page.goto(`${consoleUrl}/#/door/${door.address}/tasks/${taskId}`);
  await expect(page.getByRole('heading', { name: `Task ${taskId}`, level: 1 })).toBeVisible();
}

test.describe('task detail', () => {
  let door: Door;
  let client: MurmurClient;

  test.beforeAll(async ({ murmur }) => {
    door = await murmur.startDoor('hello');
    client = clientOf(door);
  });

  test.afterAll(async () => {
    await door?.stop();
  });

  test('shows the status, its exact time on hover, and the response artifact', async ({ page, murmur }) => {
    const task = await client.sendText('What is 2+2?');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');

    // Reached from the session view's Tasks table.
    await page.goto(`${murmur.consoleUrl}/#/door/${door.address}`);
    // The view is still filling in above the table as it first draws: a click that lands as the link moves down is
    // lost (seen once on a loaded machine), so it is clicked again until the task page opens.
    const link = page.getByRole('table', { name: 'Tasks' }).getByRole('link', { name: task.id });
    await expect(async () => {
      await link.click();
      await expect(page).toHaveURL(new RegExp(`#/door/${door.address}/tasks/${task.id}$`), { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByRole('heading', { name: `Task ${task.id}`, level: 1 })).toBeVisible();

    const status = statusPanel(page);
    await expect(status.getByRole('heading', { name: 'Status' })).toBeVisible();
    await expect(status.getByText('completed', { exact: true })).toHaveAttribute('title', 'TASK_STATE_COMPLETED');
    await expect(status.getByText('TASK_STATE_COMPLETED', { exact: true })).toBeVisible();
    await expect(status.getByText('task completed')).toBeVisible();
    await expect(status.getByText(task.contextId)).toBeVisible();

    // Times read relative; hovering shows the exact local time and the door's UTC timestamp.
    const changed = status.locator(`time[datetime="${task.status.timestamp}"]`);
    await expect(changed).toHaveText(/^(just now|\d+ s ago)$/);
    await changed.hover();
    const utc = new Date(task.status.timestamp!).toISOString();
    await expect(changed).toHaveAttribute('title', new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} local · ${utc.replace(/[.]/g, '\\.')}$`));

    const artifacts = page.getByRole('region', { name: 'Artifacts', exact: true });
    const response = artifacts.getByRole('article', { name: 'Artifact response' });
    await expect(response.getByRole('heading', { name: 'response' })).toBeVisible();
    await expect(response.getByText('four', { exact: true })).toBeVisible();
    // An ended task streams nothing more.
    await expect(page.getByText('This task has ended; nothing more will stream.')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('task-detail.png'), fullPage: true });
  });

  test('a task waiting for input shows the prompt and a reply box; the reply completes it', async ({ page, murmur }) => {
    const task = await client.sendText(unique('deploy to production'), { returnImmediately: true });
    await openTask(page, murmur.consoleUrl, door, task.id);

    const waiting = page.getByRole('region', { name: 'The task is waiting for input' });
    await expect(waiting).toBeVisible();
    await expect(waiting.getByText('Which branch?')).toBeVisible();
    await expect(statusPanel(page).getByText('TASK_STATE_INPUT_REQUIRED')).toBeVisible();
    await expect(page.getByRole('status', { name: 'Task stream' })).toHaveText('live');
    await expect(waiting.getByRole('button', { name: 'Reply' })).toBeDisabled();
    await page.screenshot({ path: test.info().outputPath('task-input-required.png'), fullPage: true });

    await waiting.getByLabel('Reply').fill('release-7');
    await waiting.getByRole('button', { name: 'Reply' }).click();

    await expect(waiting).toBeHidden();
    await expect(statusPanel(page).getByText('TASK_STATE_COMPLETED')).toBeVisible();
    const response = page.getByRole('region', { name: 'Artifacts', exact: true }).getByRole('article', { name: 'Artifact response' });
    await expect(response).toContainText('Deployed branch release-7: deploying release-7');
    // The task's own live timeline showed it resume and run its tool.
    const live = page.getByRole('region', { name: `Live events of ${task.id}` });
    await expect(live.getByText('resumed')).toBeVisible();
    // The deploy rule passes the reply to bash as an argument, never as shell code: the input shows it as JSON.
    const input = live.getByLabel('input', { exact: true });
    await expect(input).toContainText('"echo deploying \\"$1\\""');
    await expect(input).toContainText('"release-7"');
    await expect(page.getByRole('status', { name: 'Task stream' })).toHaveText('closed');
  });

  test('cancels a sleeping task after confirmation; then Cancel is disabled on the ended task', async ({ page, murmur }) => {
    const task = await client.sendText(unique('sleep a minute'), { returnImmediately: true });
    await openTask(page, murmur.consoleUrl, door, task.id);
    await expect(statusPanel(page).getByText('TASK_STATE_WORKING')).toBeVisible();
    await expect(page.getByRole('status', { name: 'Task stream' })).toHaveText('live');

    // "Keep the task" closes the dialog and does nothing.
    await page.getByRole('button', { name: 'Cancel task' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this task?' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(`CancelTask stops ${task.id}`);
    await dialog.getByRole('button', { name: 'Keep the task' }).click();
    await expect(dialog).toBeHidden();
    expect((await client.getTask(task.id)).status.state).toBe('TASK_STATE_WORKING');

    await page.getByRole('button', { name: 'Cancel task' }).click();
    await dialog.getByRole('button', { name: 'Yes, cancel the task' }).click();
    await expect(dialog).toBeHidden();
    const canceled = page.getByRole('region', { name: 'Task canceled' });
    await expect(canceled).toContainText('The door answered the task in state');
    await expect(canceled.getByText('canceled', { exact: true })).toHaveAttribute('title', 'TASK_STATE_CANCELED');
    await expect(statusPanel(page).getByText('TASK_STATE_CANCELED')).toBeVisible();
    await expect(page.getByRole('status', { name: 'Task stream' })).toHaveText('closed');
    expect((await client.getTask(task.id)).status.state).toBe('TASK_STATE_CANCELED');

    // An ended task cannot be canceled: the button is disabled (the door's -32002 refusal is tested in apps/door).
    await expect(page.getByRole('button', { name: 'Cancel task' })).toBeDisabled();
  });
});
