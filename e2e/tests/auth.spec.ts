/** An authenticated door (examples/secure): the token prompt, a refused token, the operator's and a watcher's token. */
import type { Page } from '@playwright/test';
import { tokenOf, unique } from '../support/capsules.js';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

function tokenPrompt(page: Page) {
  return page.getByRole('heading', { name: 'This door needs a token' });
}

async function saveToken(page: Page, token: string) {
  await page.getByLabel('Token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Save token' }).click();
}

test.describe('authenticated door', () => {
  let secure: Door;

  test.beforeAll(async ({ murmur }) => {
    secure = await murmur.startDoor('secure');
  });

  test.afterAll(async () => {
    await secure?.stop();
  });

  test('asks for a token, refuses a wrong one in plain words, and keeps the operator token for the tab', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, secure.address, { live: false });
    // The door answered 401: the prompt says why, in the door's words, and how to get a token.
    await expect(tokenPrompt(page)).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'this door needs a bearer token' })).toBeVisible();
    await expect(page.getByText('Run mur token on this host')).toBeVisible();
    await expect(page.getByRole('status', { name: 'Session stream' })).not.toHaveText('live');
    await expect(page.getByRole('table', { name: 'Tasks' })).toContainText('Waiting for a token.');
    // In the agent card, folded away on the session view.
    await expect(page.getByRole('region', { name: 'Agent card' }).getByText('Give a token to read the extended card.')).toBeAttached();
    await page.screenshot({ path: test.info().outputPath('auth-prompt.png'), fullPage: true });

    // An empty token is caught before it is sent.
    await page.getByRole('button', { name: 'Save token' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Paste a token' })).toBeVisible();

    // A token this session did not mint.
    await saveToken(page, 'mur_this-is-not-a-token-of-this-session');
    await expect(
      page.getByRole('alert').filter({ hasText: 'this token was not minted by this session, or the session has been restarted since' }),
    ).toBeVisible();
    await expect(tokenPrompt(page)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Forget token' })).toBeVisible();

    // The operator token: live, the tasks listed, the extended card shown, a task can be sent.
    const operator = tokenOf(secure, 'operator');
    await saveToken(page, `Bearer ${operator}`);
    await expect(tokenPrompt(page)).toBeHidden();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await expect(page.getByText('Using the token kept for this door in this tab.')).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Task pages' })).toContainText('in total');
    const card = page.getByRole('region', { name: 'Agent card' });
    // Folded away until asked for.
    await card.getByText('Agent card', { exact: true }).click();
    await expect(card.getByRole('heading', { name: 'Extended card' })).toBeVisible();
    await expect(card.getByText('Give a token to read the extended card.')).toBeHidden();
    // The extended card adds the capsule extension the public card leaves out.
    await expect(card.getByText('https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1', { exact: true })).toHaveCount(1);
    await expect(card.getByText('bearer: Bearer', { exact: true })).toHaveCount(2);

    const taskId = await sendFromConsole(page, 'What is 2+2?');
    const timeline = timelineOf(page, secure);
    await expect(timeline.getByRole('link', { name: taskId })).toBeVisible();
    await expect(timeline.locator('.tl-artifact').filter({ hasText: 'four' })).toHaveCount(1);

    // Kept for the browser session: a reload does not ask again.
    const kept = await page.evaluate((key) => sessionStorage.getItem(`murmur-console.token.${key}`), secure.address);
    expect(kept).toBe(operator);
    await page.reload();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await expect(tokenPrompt(page)).toBeHidden();
    await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('link', { name: taskId })).toBeVisible();
    await expect(
      page.getByRole('region', { name: 'Agent card' }).getByText('https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1', { exact: true }),
    ).toHaveCount(1);
  });

  test('a watcher token can watch and list, but sending says the token may not do that', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, secure.address, { live: false });
    await expect(tokenPrompt(page)).toBeVisible();
    await saveToken(page, tokenOf(secure, 'watcher'));
    await expect(tokenPrompt(page)).toBeHidden();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    // ListTasks answers (a credential sees only the tasks it started: none).
    await expect(page.getByRole('navigation', { name: 'Task pages' })).toContainText('Page 1 of 0 in total');
    await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('cell', { name: 'No tasks match.' })).toBeVisible();

    await page.getByLabel('Message').fill(unique('watcher tries to send'));
    await page.getByRole('button', { name: 'Send' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'This token may not do that' });
    await expect(refusal).toBeVisible();
    await expect(refusal).toContainText("credential 'watcher' does not reach SendMessage");
    await expect(refusal).toContainText('HTTP 403');
    // The refusal is not a token problem: no prompt, the watch stays live.
    await expect(tokenPrompt(page)).toBeHidden();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
  });

  test('Forget token clears what was read with it: the tasks, the timeline and the extended card', async ({ page, murmur }) => {
    await openDoor(page, murmur.consoleUrl, secure.address, { live: false });
    await saveToken(page, tokenOf(secure, 'operator'));
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    const taskId = await sendFromConsole(page, unique('seen with the operator token'));
    const table = page.getByRole('table', { name: 'Tasks' });
    await expect(table.getByRole('link', { name: taskId })).toBeVisible();
    await expect(timelineOf(page, secure).getByRole('link', { name: taskId })).toBeVisible();

    await page.getByRole('button', { name: 'Forget token' }).click();
    await expect(tokenPrompt(page)).toBeVisible();
    await expect(table.getByRole('link', { name: taskId })).toHaveCount(0);
    await expect(table).toContainText('Waiting for a token.');
    await expect(page.getByRole('navigation', { name: 'Task pages' })).not.toContainText('in total');
    await expect(page.getByRole('link', { name: taskId })).toHaveCount(0);
    await page.getByRole('region', { name: 'Agent card' }).getByText('Agent card', { exact: true }).click();
    await expect(page.getByRole('region', { name: 'Agent card' }).getByRole('heading', { name: 'Extended card' })).toBeVisible();
    await expect(page.getByText('Give a token to read the extended card.')).toBeVisible();
  });

  test('once the door has answered 401 it is asked nothing more that needs a token until the operator acts', async ({ page, murmur }) => {
    const asked: string[] = [];
    page.on('request', (request) => {
      if (!request.url().includes(`/api/door/${secure.address}/`)) return;
      const body = request.postData();
      asked.push(
        body === null
          ? `${request.method()} ${new URL(request.url()).pathname.replace(`/api/door/${secure.address}`, '')}`
          : (JSON.parse(body) as { method: string }).method,
      );
    });
    await openDoor(page, murmur.consoleUrl, secure.address, { live: false });
    await expect(tokenPrompt(page)).toBeVisible();
    await expect(page.getByRole('table', { name: 'Tasks' })).toContainText('Waiting for a token.');
    // The door answers (401): the stream needs a token, it is not lost, and a Reconnect would not help.
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('needs a token');
    await expect(page.getByRole('button', { name: 'Reconnect' })).toHaveCount(0);
    // A task page reached by its address (no click): its GetTask is not sent either.
    await page.goto(`${murmur.consoleUrl}/#/door/${secure.address}/tasks/tsk_00000000000000000000000000000000`);
    await expect(page.getByRole('heading', { name: 'This door needs a token' })).toBeVisible();
    await page.goto(`${murmur.consoleUrl}/#/door/${secure.address}`);
    await expect(tokenPrompt(page)).toBeVisible();
    await page.waitForTimeout(3_000);
    // One ListTasks learnt that the door needs a token; the public card needs none.
    expect(asked.sort()).toEqual(['GET /.well-known/agent-card.json', 'ListTasks']);

    // The operator acts: Refresh tasks asks again, once.
    await page.getByRole('button', { name: 'Refresh tasks' }).click();
    await expect.poll(() => asked.filter((m) => m === 'ListTasks').length).toBe(2);
    await page.waitForTimeout(1_000);
    expect(asked.filter((m) => m !== 'GET /.well-known/agent-card.json')).toEqual(['ListTasks', 'ListTasks']);
  });
});

test('a door nobody answers is asked once, then again on the back-off (5 s first)', async ({ page, murmur }) => {
  // Port 1 on loopback: nothing listens there, so mur console's proxy answers 502 door_unreachable.
  const address = '127.0.0.1:1';
  const asked: number[] = [];
  const start = Date.now();
  page.on('request', (request) => {
    if (request.url().includes(`/api/door/${address}/`)) asked.push(Date.now() - start);
  });
  await openDoor(page, murmur.consoleUrl, address, { live: false });
  await expect(
    page
      .getByRole('alert')
      .filter({ hasText: `Cannot reach the door at ${address}` })
      .first(),
  ).toBeVisible();
  // Judged by when Chromium sent each ask, not by when this test looked: on a loaded machine the test's own steps
  // can take longer than the back-off. The second ask is the next after the first, and came 5 s or more after it.
  await expect.poll(() => asked.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  expect(asked[1] - asked[0]).toBeGreaterThanOrEqual(4_900);
  expect(asked[1] - asked[0]).toBeLessThan(9_000);
});
