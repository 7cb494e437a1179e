/** Capsules page (#/): the sessions on this host, a killed door going stale, and connecting by address. */
import type { Page } from '@playwright/test';
import { type Door, expect, test } from '../support/fixtures.js';

function sessionRow(page: Page, door: Door) {
  return page.getByRole('table', { name: 'Sessions' }).getByRole('row').filter({ hasText: door.sessionId });
}

test.describe('capsules', () => {
  let hello: Door;
  let secure: Door;

  test.beforeAll(async ({ murmur }) => {
    [hello, secure] = await Promise.all([murmur.startDoor('hello'), murmur.startDoor('secure')]);
  });

  test.afterAll(async () => {
    await Promise.all([hello?.stop(), secure?.stop()]);
  });

  test('lists the running sessions with name, version, address and state', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/`);
    await expect(page.getByRole('heading', { name: 'Capsules', level: 1 })).toBeVisible();
    const table = page.getByRole('table', { name: 'Sessions' });
    for (const name of ['Name', 'Version', 'Address', 'State', 'Started', 'Session']) {
      await expect(table.getByRole('columnheader', { name })).toBeVisible();
    }
    for (const [door, name] of [
      [hello, 'hello'],
      [secure, 'secure'],
    ] as const) {
      const row = sessionRow(page, door);
      await expect(row).toHaveCount(1);
      // The state first (a narrow screen sees it without scrolling), then the name, version and address.
      const cells = row.getByRole('cell');
      await expect(cells.nth(0)).toHaveText('running');
      await expect(cells.nth(2)).toHaveText(name);
      await expect(cells.nth(3)).toHaveText('0.1.0');
      await expect(cells.nth(4)).toHaveText(door.address);
      await expect(row.getByRole('link', { name })).toHaveAttribute('href', `#/door/${door.address}`);
    }
    await page.screenshot({ path: test.info().outputPath('capsules.png'), fullPage: true });

    // The name links to the session view.
    await sessionRow(page, hello).getByRole('link', { name: 'hello' }).click();
    await expect(page).toHaveURL(new RegExp(`#/door/${hello.address}$`));
    await expect(page.getByRole('heading', { name: /^hello/, level: 1 })).toBeVisible();
  });

  test('a killed door shows as stale after Refresh', async ({ page, murmur }) => {
    const doomed = await murmur.startDoor('hello');
    await page.goto(`${murmur.consoleUrl}/#/`);
    const row = sessionRow(page, doomed);
    await expect(row.getByRole('cell').nth(0)).toHaveText('running');

    await doomed.stop('SIGKILL');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const state = row.getByRole('cell').nth(0);
    await expect(state).toHaveText(/^(stale|unreachable)\b/);
    await expect(state).toContainText(/process \d+ is gone|no answer/);
    // A stale session is no longer a link; the running ones still are.
    await expect(row.getByRole('link')).toHaveCount(0);
    await expect(sessionRow(page, hello).getByRole('cell').nth(0)).toHaveText('running');
  });

  test('connects to a loopback door by address and refuses any other host', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/`);
    const address = page.getByLabel('Door address');

    await address.fill('10.1.2.3:8080');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByRole('alert')).toContainText('10.1.2.3 is not a loopback address');
    await expect(page.getByRole('alert')).toContainText('mur console only reaches doors on this host');
    await expect(page).toHaveURL(/#\/$/);

    await address.fill('https://example.com:443');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByRole('alert')).toContainText('plain http');

    // A bare port means 127.0.0.1; the session view opens and goes live.
    await address.fill(String(new URL(hello.url).port));
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page).toHaveURL(new RegExp(`#/door/${hello.address}$`));
    await expect(page.getByRole('heading', { name: /^hello/, level: 1 })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');

    // A non-loopback door in the URL itself is refused with the reason, not proxied.
    await page.goto(`${murmur.consoleUrl}/#/door/192.168.7.7:4000`);
    await expect(page.getByRole('heading', { name: 'Cannot open this door' })).toBeVisible();
    await expect(page.getByRole('alert')).toContainText('192.168.7.7 is not a loopback address');
  });
});
