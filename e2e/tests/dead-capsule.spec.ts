/**
 * A capsule killed with SIGKILL: the session view marks it within 3 s by mur console's process check, keeping the
 * timeline it showed; the capsules page, left open, shows it stale without a reload.
 */
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { openDoor, timelineOf } from '../support/console.js';
import { expect, test } from '../support/fixtures.js';

let capsule: Capsule;
test.beforeAll(() => {
  capsule = makeCapsule({ name: 'mortal', rules: [{ match: '^say (.*)$', turns: [{ answer: '{{match.1}}' }] }] });
});
test.afterAll(() => capsule?.remove());

test('a SIGKILLed capsule is marked within 3 s, and its timeline is kept', async ({ page, murmur, consoleErrors }) => {
  // The kill cuts the watch's open response: Chromium logs the broken stream.
  consoleErrors.allow(/^Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING$/);
  const door = await murmur.startDoor(capsule.dir);
  const task = await clientOf(door).sendText('say still here');
  await openDoor(page, murmur.consoleUrl, door.address);
  const timeline = timelineOf(page, door);
  await expect(timeline.getByRole('link', { name: task.id })).toBeVisible();

  const killedAt = Date.now();
  await door.stop('SIGKILL');
  const indicator = page.getByRole('status', { name: 'Session stream' });
  await expect(indicator).toHaveText('lost', { timeout: 3000 });
  expect(Date.now() - killedAt).toBeLessThan(3000);
  await expect(page.getByText(/the capsule's process \d+ is gone/)).toBeVisible();
  await expect(timeline.getByRole('link', { name: task.id })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reconnect' })).toBeVisible();
});

test('the capsules page refreshes by itself: a killed capsule reads stale', async ({ page, murmur }) => {
  const door = await murmur.startDoor(capsule.dir);
  await page.goto(murmur.consoleUrl);
  const row = page.getByRole('row').filter({ hasText: door.sessionId });
  await expect(row).toContainText('running');
  await door.stop('SIGKILL');
  await expect(row).toContainText('stale', { timeout: 5000 });
});
