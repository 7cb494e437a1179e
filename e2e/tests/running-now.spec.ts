/**
 * Running now (issue 27; docs/console.md, "Running now") across 50 real script doors and a two-member formation: the
 * page shows every door live, the tasks in a tool call and in a turn, the task waiting for input (replied from the
 * page, by keyboard), the busy formation member, and follows new tasks live — over one stream from mur console,
 * whatever the number of doors, with the bound stated.
 */
import { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { type Capsule, clientOf, makeCapsule, unique } from '../support/capsules.js';
import { type Door, type Formation, expect, test } from '../support/fixtures.js';
import { type FormationFolder, makeFormation } from '../support/formation.js';

const DOORS = 50;
/** Doors started at once: start-up is mostly CPU, and the machine has two cores. */
const BATCH = 10;
const SLEEPING = 8;
/** mur console connects to 50 doors at once: on a loaded two-core machine that takes minutes, not seconds. */
const patient = expect.configure({ timeout: 60_000 });
const THINKING = 4;

const capsuleSpec = {
  name: 'many',
  shell: ['bash', 'sleep'],
  rules: [
    { match: '^sleep', turns: [{ tools: [{ tool: 'bash', input: { command: 'sleep 300' } }] }, { answer: 'slept' }] },
    { match: '^think', turns: [{ sleep_ms: 300_000, answer: 'thought' }] },
    { match: '^ask', turns: [{ ask: 'Which colour?' }, { answer: 'got {{reply}}' }] },
  ],
};

test.describe('running now across 50 doors', () => {
  let capsule: Capsule;
  let folder: FormationFolder;
  let formation: Formation;
  const doors: Door[] = [];
  const clients: MurmurClient[] = [];
  const sleeping: string[] = [];
  const thinking: string[] = [];
  let asking: string;
  let askingDoor: Door;
  let leadTask: string;

  test.beforeAll(async ({ murmur }) => {
    // 50 doors on two cores: a door's start is mostly CPU, so this is slow on a loaded machine.
    test.setTimeout(600_000);
    capsule = makeCapsule(capsuleSpec);
    folder = makeFormation({
      name: 'crew',
      entry: 'lead',
      members: {
        lead: { acceptance: 'queue', shell: ['bash', 'sleep'], turns: [{ tools: [{ tool: 'bash', input: { command: 'sleep 300' } }] }, { answer: 'done' }] },
        helper: { callee: true, turns: [{ answer: 'ok' }] },
      },
      rules: [{ from: 'lead', to: ['helper'] }],
    });
    // The formation first: its supervisor gives each member 30 s to start, which 50 doors starting beside it would take.
    formation = await murmur.startFormation(folder.roster);
    for (let i = 0; i < DOORS; i += BATCH) {
      doors.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, DOORS - i) }, () => murmur.startDoor(capsule.dir)))));
    }
    clients.push(...doors.map((door) => clientOf(door)));
    for (let i = 0; i < SLEEPING; i++) sleeping.push((await clients[i].sendText(unique('sleep'), { returnImmediately: true })).id);
    for (let i = 0; i < THINKING; i++) thinking.push((await clients[SLEEPING + i].sendText(unique('think'), { returnImmediately: true })).id);
    askingDoor = doors[DOORS - 1];
    asking = (await clients[DOORS - 1].sendText(unique('ask'), { returnImmediately: true })).id;
    leadTask = (await new MurmurClient(formation.member('lead').url).sendText('busy', { returnImmediately: true })).id;
  });

  test.afterAll(async () => {
    test.setTimeout(300_000);
    // The worker's other tests share this MURMUR_HOME: leave none of these doors registered.
    await Promise.all(doors.map((door) => door.stop()));
    await formation?.stop();
    capsule?.remove();
    folder?.remove();
  });

  /** How many of this test's doors the Doors table shows with `state`. */
  const doorsIn = (page: Page, state: string) =>
    page.evaluate(({ keys, state }) => keys.filter((key) => document.querySelector(`tr[data-door="${key}"]`)?.textContent?.includes(state)).length, {
      keys: doors.map((d) => d.address),
      state,
    });

  test('shows every door live, the tasks in a tool call and a turn, the one waiting for input and the busy member, with its bound', async ({
    page,
    murmur,
  }) => {
    test.setTimeout(480_000);
    await page.goto(murmur.consoleUrl);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Running now' }).click();
    await patient(page).toHaveURL(/#\/running$/);
    await patient(page.getByRole('heading', { level: 1 })).toHaveText('Running now');
    await patient(page.getByRole('status', { name: 'Running now stream' })).toHaveText('live');
    await patient(page.getByText(/^\s*Bounded: mur console holds one session stream per door for at most 100 doors/)).toBeVisible();
    await expect.poll(() => doorsIn(page, 'live'), { timeout: 60_000 }).toBe(DOORS);

    const live = page.getByRole('table', { name: 'Live tasks' });
    for (const id of sleeping) await patient(live.locator(`tr[data-task="${id}"]`)).toContainText(/tool bash \(turn 1\), for \d/);
    for (const id of thinking) await patient(live.locator(`tr[data-task="${id}"]`)).toContainText('turn 1');
    await patient(live.locator(`tr[data-task="${sleeping[0]}"]`)).toContainText('working');

    const waiting = page.getByRole('table', { name: 'Waiting for input' }).locator(`tr[data-task="${asking}"]`);
    await patient(waiting).toContainText('Which colour?');
    await patient(waiting.getByRole('link', { name: asking })).toHaveAttribute('href', `#/door/${askingDoor.address}/tasks/${asking}`);

    const busy = page.getByRole('table', { name: 'Members busy in formations' }).locator('tr[data-member="lead"]');
    await patient(busy).toContainText('crew');
    await patient(busy).toContainText(leadTask);
    await patient(busy).toContainText(/tool bash/);
    await patient(page.getByRole('table', { name: 'Members busy in formations' }).locator('tr[data-member="helper"]')).toHaveCount(0);

    const totals = page.getByRole('status', { name: 'Running now totals' });
    // The totals count what the page lists (another session of this host may wait for input too).
    await expect
      .poll(
        async () => {
          const listed = await page.getByRole('table', { name: 'Waiting for input' }).locator('tbody tr[data-task]').count();
          return new RegExp(`\\b${listed} waiting for input\\b`).test((await totals.textContent()) ?? '') && listed >= 1;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    await patient(totals).toContainText(/\d+ doors watched, \d+ live/);
  });

  test('Reply on the waiting task, by keyboard, answers it; the page follows new tasks and ends live', async ({ page, murmur }) => {
    test.setTimeout(300_000);
    // The page asks the doors nothing but the reply: it reads mur console's one stream.
    const doorRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/door/')) doorRequests.push(`${request.method()} ${request.url()}`);
    });
    await page.goto(`${murmur.consoleUrl}/#/running`);
    const waiting = page.getByRole('table', { name: 'Waiting for input' });
    const reply = waiting.getByRole('button', { name: `Reply to ${asking}` });
    await reply.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Reply to the task' });
    await patient(dialog).toContainText('Which colour?');
    await dialog.getByLabel('Reply').fill('teal');
    await dialog.getByRole('button', { name: 'Send reply' }).click();
    await patient(dialog).toBeHidden();
    await patient(waiting.locator(`tr[data-task="${asking}"]`)).toHaveCount(0);
    await patient(waiting).toContainText('No task is waiting for input.');
    await expect.poll(async () => (await clients[DOORS - 1].getTask(asking)).status.state).toBe('TASK_STATE_COMPLETED');

    // A task started now appears, and goes when it ends.
    const live = page.getByRole('table', { name: 'Live tasks' });
    const fresh = (await clients[30].sendText(unique('think'), { returnImmediately: true })).id;
    await patient(live.locator(`tr[data-task="${fresh}"]`)).toContainText('turn 1');
    await clients[30].cancelTask(fresh);
    await patient(live.locator(`tr[data-task="${fresh}"]`)).toHaveCount(0);
    expect(doorRequests).toHaveLength(1);
    expect(doorRequests[0].startsWith(`POST ${murmur.consoleUrl}/api/door/${askingDoor.address}`)).toBe(true);
  });
});
