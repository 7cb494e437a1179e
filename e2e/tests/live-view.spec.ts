/**
 * A live view you can trust (issue 14): the session timeline keeps following the newest event after in-app
 * navigation back from a task page (breadcrumb and browser Back), and Reconnect keeps what was shown and marks the gap.
 */
import type { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { type Capsule, clientOf, makeCapsule, unique } from '../support/capsules.js';
import { openDoor, timelineOf } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/** Starts `count` quick tasks behind the console, one after the other; returns the last one's id. */
async function burst(client: MurmurClient, count: number): Promise<string> {
  let last = '';
  for (let i = 0; i < count; i++) last = (await client.sendText(unique(`ping ${i}`))).id;
  return last;
}

/** The newest task is rendered, the timeline is scrolled to its end, and the bar says it follows. */
async function expectFollowing(page: Page, door: string, taskId: string) {
  const timeline = timelineOf(page, door);
  await expect(timeline.getByRole('link', { name: taskId })).toBeVisible();
  await expect(timeline.getByText('pong twice')).not.toHaveCount(0);
  await expect.poll(() => timeline.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(30);
  await expect(page.getByText('following the latest')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toBeHidden();
}

test.describe('live view', () => {
  let capsule: Capsule;
  let door: Door;
  let client: MurmurClient;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({
      name: 'live-view',
      rules: [
        {
          match: 'ping',
          turns: [
            { thinking: ['hm'], text: ['pong ', 'once'] },
            { text: ['and ', 'again'], answer: 'pong twice' },
          ],
        },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
    client = clientOf(door);
  });

  test.afterAll(async () => {
    await door?.stop();
    capsule?.remove();
  });

  test('keeps following the newest event after the breadcrumb and after Back', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, door.address);
    const first = await burst(client, 12);
    await expectFollowing(page, door.address, first);

    // Away to a task page and back by the breadcrumb: new events still pull the view down.
    await timelineOf(page, door).getByRole('link', { name: first }).click();
    await expect(page.getByRole('heading', { name: `Task ${first}`, level: 1 })).toBeVisible();
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'live-view' }).click();
    await expect(page.getByRole('heading', { name: 'Live timeline' })).toBeVisible();
    await expectFollowing(page, door.address, first);
    const second = await burst(client, 4);
    await expectFollowing(page, door.address, second);

    // …and by the browser's Back.
    await timelineOf(page, door).getByRole('link', { name: second }).click();
    await expect(page.getByRole('heading', { name: `Task ${second}`, level: 1 })).toBeVisible();
    await page.goBack();
    await expect(page.getByRole('heading', { name: 'Live timeline' })).toBeVisible();
    await expectFollowing(page, door.address, second);
    const third = await burst(client, 4);
    await expectFollowing(page, door.address, third);
  });
});

test.describe('reconnect after a lost stream', () => {
  let capsule: Capsule;
  let door: Door;
  let proxy: TcpProxy;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({ name: 'reconnect-keep', rules: [{ match: 'ping', turns: [{ text: ['pong'], answer: 'pong' }] }] });
    door = await murmur.startDoor(capsule.dir);
    const url = new URL(door.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  });

  test.afterAll(async () => {
    await proxy?.close();
    await door?.stop();
    capsule?.remove();
  });

  test('Reconnect keeps what was shown, marks the gap and shows what came meanwhile once', async ({ page, murmur, consoleErrors }) => {
    // The proxy cuts the watch's open response: Chromium logs the broken stream.
    consoleErrors.allow(/^Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING$/);
    await openDoor(page, murmur.consoleUrl, proxy.address);
    const client = clientOf(door);
    const before = (await client.sendText(unique('ping before'))).id;
    const timeline = timelineOf(page, proxy.address);
    await expect(timeline.getByRole('link', { name: before })).toBeVisible();

    // The stream drops and the door's address answers 404 for a while: the watch gives up (lost).
    const refuse = '**/api/door/**';
    await page.route(refuse, (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not_found"}' }));
    expect(proxy.dropAll()).toBeGreaterThan(0);
    const indicator = page.getByRole('status', { name: 'Session stream' });
    await expect(indicator).toHaveText('lost', { timeout: 30_000 });
    await expect(timeline.getByRole('link', { name: before })).toBeVisible();

    // A task while nobody listened, then Reconnect.
    const during = (await client.sendText(unique('ping during'))).id;
    await page.unroute(refuse);
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await expect(indicator).toHaveText('live');
    await expect(page.getByRole('alert').filter({ hasText: /^Gap:\s*Reconnected/ })).toBeVisible();
    await expect(page.getByText('Nothing yet')).toBeHidden();
    await expect(timeline.getByRole('link', { name: before })).toHaveCount(1);
    await expect(timeline.getByRole('link', { name: during })).toHaveCount(1);
  });
});
