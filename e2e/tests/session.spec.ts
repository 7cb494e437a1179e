/** Session view (#/door/<host:port>): the live timeline, fed by murmur.WatchSession, with a task sent from the console. */
import { type Door, expect, test } from '../support/fixtures.js';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';

test.describe('session timeline', () => {
  // The session view bounds its timeline by the window, so the tasks table stays above the fold (docs/console.md,
  // "The session view"); these tests read every row of two tasks at once, so they take a window tall enough to show them.
  test.use({ viewport: { width: 1280, height: 1000 } });
  let hello: Door;

  test.beforeAll(async ({ murmur }) => {
    hello = await murmur.startDoor('hello');
  });

  test.afterAll(async () => {
    await hello?.stop();
  });

  test('a message sent from the console streams its thinking, text and answer, grouped under its task', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, hello.address);
    await expect(page.getByRole('heading', { name: /^hello\s+0\.1\.0$/, level: 1 })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');

    const taskId = await sendFromConsole(page, 'What is 2+2?');
    const timeline = timelineOf(page, hello);

    // The task's header: state, the id linking to its page, the last status message.
    await expect(timeline.getByRole('link', { name: taskId })).toHaveAttribute('href', `#/door/${hello.address}/tasks/${taskId}`);
    const collapse = timeline.getByRole('button', { name: `Collapse task ${taskId}` });
    await expect(collapse).toBeVisible();

    // The header follows the task to its end; its entries are the statuses, the text, the response artifact.
    const header = timeline.locator('.tl-task').filter({ has: page.getByRole('link', { name: taskId }) });
    await expect(header.getByText('completed', { exact: true })).toBeVisible();
    await expect(header).toContainText('task completed');
    await expect(header).toContainText(/\d+ entries/);
    await expect(timeline.locator('.tl-status')).toHaveText([/submitted/, /working\s*inference turn 1/, /completed\s*task completed/]);
    await expect(timeline.locator('.tl-text')).toHaveText('four');
    const response = timeline.locator('.tl-artifact').filter({ hasText: 'Artifact response' });
    await expect(response.getByText('four', { exact: true })).toBeVisible();

    // Thinking is collapsed: its summary shows, its text only once opened.
    const thinking = timeline.getByText(/^Thinking/);
    await expect(thinking).toBeVisible();
    await expect(timeline.getByText('Two and two make four.')).toBeHidden();
    await thinking.click();
    await expect(timeline.getByText('Two and two make four.')).toBeVisible();

    // Grouped by task: collapsing the task hides its entries, expanding shows them again.
    await collapse.click();
    await expect(timeline.locator('.tl-status')).toHaveCount(0);
    await expect(response).toBeHidden();
    await expect(timeline.getByRole('button', { name: `Expand task ${taskId}` })).toHaveAttribute('aria-expanded', 'false');
    await timeline.getByRole('button', { name: `Expand task ${taskId}` }).click();
    await expect(timeline.locator('.tl-status')).toHaveCount(3);
    await expect(response).toBeVisible();
  });

  test('a tool call shows its input, output, exit code and duration', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, hello.address);
    const timeline = timelineOf(page, hello);

    const systemTask = await sendFromConsole(page, 'Show the system');
    const countTask = await sendFromConsole(page, 'count to 5');
    expect(countTask).not.toBe(systemTask);

    // Each task is its own group, in the order they were sent.
    await expect(timeline.getByRole('link', { name: systemTask })).toBeVisible();
    await expect(timeline.getByRole('link', { name: countTask })).toBeVisible();

    const tools = timeline.locator('.tl-tool');
    await expect(tools).toHaveCount(2);
    const system = tools.filter({ hasText: 'uname -s' });
    await expect(system.getByText('Tool bash')).toBeVisible();
    await expect(system.getByLabel('input', { exact: true })).toHaveText('$ uname -s && echo "cwd=$(basename "$PWD")"');
    await expect(system.getByLabel('output', { exact: true })).toContainText('Linux');
    await expect(system.getByLabel('output', { exact: true })).toContainText('cwd=work');
    await expect(system.getByText('exit 0')).toBeVisible();
    await expect(system.getByText(/^\d+(\.\d+)?\s*(ms|s)$/)).toBeVisible();
    await expect(system.getByText('What the model saw')).toBeVisible();

    const count = tools.filter({ hasText: 'seq 1 5' });
    await expect(count.getByLabel('input', { exact: true })).toHaveText("$ seq 1 5 | paste -sd ' '");
    await expect(count.getByLabel('output', { exact: true })).toHaveText('1 2 3 4 5');
    await expect(count.getByText('exit 0')).toBeVisible();

    // Both end completed with their answers.
    const answers = timeline.locator('.tl-artifact').filter({ hasText: 'Artifact response' });
    await expect(answers.filter({ hasText: 'The system says: Linux' })).toHaveCount(1);
    await expect(answers.filter({ hasText: '1 2 3 4 5' })).toHaveCount(1);
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await page.screenshot({ path: test.info().outputPath('session-timeline.png'), fullPage: true });
  });
});
