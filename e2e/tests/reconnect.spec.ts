/**
 * Reconnect: the console reaches the door through a TCP proxy in the test process; dropping the proxied connections
 * mid-stream (the door keeps running) makes the watch reconnect with Last-Event-ID, and nothing is shown twice.
 */
import { type Capsule, makeCapsule } from '../support/capsules.js';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const TICKS = Array.from({ length: 24 }, (_, i) => `tick-${String(i + 1).padStart(2, '0')} `);

test.describe('reconnect', () => {
  let capsule: Capsule;
  let door: Door;
  let proxy: TcpProxy;

  test.beforeAll(async ({ murmur }) => {
    capsule = makeCapsule({
      name: 'ticker',
      rules: [
        { match: 'tick', turns: [{ text: TICKS, pace_ms: 120, answer: 'ticked' }] },
        { match: 'ping', turns: [{ text: ['pong ', 'once'], answer: 'pong once' }] },
      ],
    });
    door = await murmur.startDoor(capsule.dir);
    const url = new URL(door.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  });

  test.afterAll(async () => {
    await proxy?.close();
    await door?.stop();
    capsule?.remove();
  });

  test('a dropped stream goes reconnecting → live, and no event is shown twice', async ({ page, murmur, consoleErrors }) => {
    // The proxy cuts the watch's open response: Chromium logs the broken stream.
    consoleErrors.allow(/^Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING$/);
    await openDoor(page, murmur.consoleUrl, proxy.address);
    const indicator = page.getByRole('status', { name: 'Session stream' });
    const timeline = timelineOf(page, proxy.address);

    // Every state the indicator shows, in order (a reconnect lasts about half a second).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __indicatorStates: string[] }).__indicatorStates = seen;
      const node = document.querySelector('[role="status"][aria-label="Session stream"]')!;
      new MutationObserver(() => {
        const text = node.textContent ?? '';
        if (seen.at(-1) !== text) seen.push(text);
      }).observe(node, { childList: true, characterData: true, subtree: true });
    });

    // A finished task before the drop: the replay after the reconnect must not repeat it.
    const ping = await sendFromConsole(page, 'ping');
    await expect(timeline.locator('.tl-artifact').filter({ hasText: 'pong once' })).toHaveCount(1);

    const tick = await sendFromConsole(page, 'tick for a while');
    const text = timeline.locator('.tl-text').filter({ hasText: 'tick-01' });
    await expect(text).toContainText('tick-06');
    expect(proxy.dropAll()).toBeGreaterThan(0);

    await expect(indicator).toHaveText('live');
    await expect.poll(() => page.evaluate(() => (window as unknown as { __indicatorStates: string[] }).__indicatorStates)).toEqual(['reconnecting', 'live']);
    await expect(page.getByText(/reconnected \(attempt \d\)/)).toBeVisible();
    expect(proxy.accepted).toBeGreaterThan(1);

    // The task streams on to its end; every chunk shows exactly once, in order.
    await expect(timeline.locator('.tl-artifact').filter({ hasText: 'ticked' })).toHaveCount(1, { timeout: 15_000 });
    await expect(text).toHaveText(TICKS.join(''));
    const shown = (await text.textContent()) ?? '';
    for (const t of TICKS) expect(shown.split(t.trim()).length - 1, `${t} shown once`).toBe(1);

    // Each task once, each of its statuses once.
    await expect(timeline.getByRole('link', { name: ping })).toHaveCount(1);
    await expect(timeline.getByRole('link', { name: tick })).toHaveCount(1);
    await expect(timeline.locator('.tl-artifact').filter({ hasText: 'pong once' })).toHaveCount(1);
    await expect(timeline.locator('.tl-status').filter({ hasText: 'task completed' })).toHaveCount(2);
    await expect(timeline.locator('.tl-status').filter({ hasText: 'inference turn 1' })).toHaveCount(2);
    await expect(timeline.locator('.tl-status').filter({ hasText: 'submitted' })).toHaveCount(2);
    await expect(page.getByRole('alert').filter({ hasText: /^(Gap|Lagged):/ })).toHaveCount(0);
    await expect(indicator).toHaveText('live');
  });
});
