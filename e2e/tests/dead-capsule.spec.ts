/**
 * A capsule killed with SIGKILL: the session view marks it within seconds by mur console's process check (asked
 * every second), keeping the timeline it showed; the capsules page, left open, shows it stale without a reload.
 */
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { openDoor, timelineOf } from '../support/console.js';
import { expect, test } from '../support/fixtures.js';

let capsule: Capsule;
test.beforeAll(() => {
  capsule = makeCapsule({ name: 'mortal', rules: [{ match: '^say (.*)$', turns: [{ answer: '{{match.1}}' }] }] });
});
test.afterAll(() => capsule?.remove());

/**
 * The bound: the check runs every second (1–2 s on a quiet machine); 6 s holds on a loaded CI machine and is a tenth of
 * the ~60 s the watch's own back-off (8 retries, 0.5 s doubling to 15 s) would take to give up without the check.
 */
const MARKED_WITHIN_MS = 6000;

test('a SIGKILLed capsule is marked within seconds by the process check, and its timeline is kept', async ({ page, murmur, consoleErrors }) => {
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
  await expect(indicator).toHaveText('lost', { timeout: MARKED_WITHIN_MS });
  expect(Date.now() - killedAt).toBeLessThan(MARKED_WITHIN_MS);
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
