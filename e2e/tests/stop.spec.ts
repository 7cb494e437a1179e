/** Stop session: the confirmation, the canceled task ids and the residue; the door answers afterwards. */
import type { MurmurClient } from '@murmur/client';
import { type Capsule, clientOf, makeCapsule, unique } from '../support/capsules.js';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

test.describe('stop session', () => {
  let capsule: Capsule;
  let door: Door;
  let client: MurmurClient;

  test.beforeAll(async ({ murmur }) => {
    // A command past the 1 s shell grace moves to the background (residue); the task then naps until canceled.
    capsule = makeCapsule({
      name: 'stoppable',
      lifecycle: { task_acceptance: 'queue', shell_grace_secs: 1 },
      rules: [
        {
          match: 'background',
          turns: [{ tools: [{ tool: 'bash', input: { command: 'sleep 25; echo e2e-residue-done' } }] }, { sleep_ms: 60_000, answer: 'never' }],
        },
        { match: 'nap', turns: [{ sleep_ms: 60_000, answer: 'woke up' }] },
        { match: 'what is 2\\s*\\+\\s*2', turns: [{ text: ['fo', 'ur'], answer: 'four' }] },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
    client = clientOf(door);
  });

  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('asks first, then shows the canceled tasks and the residue; the door keeps answering', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const background = await client.sendText(unique('run it in the background'), { returnImmediately: true });
    const queued = await client.sendText(unique('nap a while'), { returnImmediately: true });
    // The first task's command moved to the background (its tool call returned a work id and inference went on);
    // the second waits its turn.
    const timeline = timelineOf(page, door);
    await expect(timeline.locator('.tl-status').filter({ hasText: 'inference turn 2' })).toHaveCount(1, { timeout: 15_000 });
    await expect(timeline.locator('.tl-tool').filter({ hasText: 'sleep 25' }).getByText('running')).toHaveCount(0);
    expect((await client.getTask(queued.id)).status.state).toBe('TASK_STATE_SUBMITTED');

    // "Keep it running" (and Esc) close the dialog without stopping anything.
    await page.getByRole('button', { name: 'Stop session' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop this session?' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(`cancels every live task on ${door.address}`);
    await dialog.getByRole('button', { name: 'Keep it running' }).click();
    await expect(dialog).toBeHidden();
    await page.getByRole('button', { name: 'Stop session' }).click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    expect((await client.getTask(background.id)).status.state).toBe('TASK_STATE_WORKING');

    await page.getByRole('button', { name: 'Stop session' }).click();
    await dialog.getByRole('button', { name: 'Yes, stop the session' }).click();
    await expect(dialog).toBeHidden();

    const stopped = page.getByRole('region', { name: 'Session stopped' });
    await expect(stopped).toContainText(`Session ${door.sessionId}: canceled 2 tasks:`);
    for (const id of [background.id, queued.id]) {
      await expect(stopped.getByRole('link', { name: id })).toHaveAttribute('href', `#/door/${door.address}/tasks/${id}`);
    }
    await expect(stopped).toContainText('Still running (residue):');
    await expect(stopped).toContainText('"kind": "detached_shell"');
    await expect(stopped).toContainText('sleep 25; echo e2e-residue-done');

    // Both tasks read canceled, in the timeline and the table.
    for (const id of [background.id, queued.id]) expect((await client.getTask(id)).status.state).toBe('TASK_STATE_CANCELED');
    const tasks = page.getByRole('table', { name: 'Tasks' });
    await expect(tasks.getByRole('row').filter({ hasText: background.id }).getByText('canceled', { exact: true })).toBeVisible();
    await expect(tasks.getByRole('row').filter({ hasText: queued.id }).getByText('canceled', { exact: true })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('stop-session.png'), fullPage: true });

    // The door stays up: the watch is still live and a new task runs to its answer.
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    const after = await sendFromConsole(page, 'What is 2+2?');
    await expect(timeline.getByRole('link', { name: after })).toBeVisible();
    await expect.poll(async () => (await client.getTask(after)).status.state).toBe('TASK_STATE_COMPLETED');
    await expect(tasks.getByRole('row').filter({ hasText: after }).getByText('completed', { exact: true })).toBeVisible();
  });
});
