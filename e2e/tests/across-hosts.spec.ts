/**
 * The console across hosts (issue 26; docs/console.md, "Across hosts"), on real test hosts: three network namespaces
 * made by this test (support/netns.ts), joined by a bridge on a private 10.x /24. A door runs on `alpha`, another on
 * `beta`, each under its own MURMUR_HOME as on its own machine; `mur console --door … --door …` runs on `console`,
 * bound to its veth address; Chromium, in the root namespace, opens it there. Every request between them crosses
 * the test network.
 *
 * What runs today: the door list, a remote door live with the token of its own (a token file for alpha, a token
 * typed in the console for beta), a task sent from the console streaming back, the proxy refusing a door it was not
 * given, and the console's file-reading API refusing the browser (not loopback). A remote task's record, its
 * waterfall, the session's search and export read the record from the door itself (the door's record surface).
 * A formation's members share one host (seed 004; docs/formations.md, "One host, watched from anywhere"): one runs on
 * `beta` with `mur run --roster … --host <beta's address>`, beside beta's door, and a console on `console` watches it
 * through its members' doors. Its formation view is assembled from files on the console's own host, which a browser
 * on another host may not read: that test fails until the view is read from the members' doors.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MurmurClient } from '@murmur/client';
import type { Page } from '@playwright/test';
import { type Capsule, makeCapsule, tokenOf, unique } from '../support/capsules.js';
import { type FormationFolder, makeFormation } from '../support/formation.js';
import { openDoor, sendFromConsole, timelineOf } from '../support/console.js';
import { type Door, expect, spawnMur, stopper, test } from '../support/fixtures.js';
import { makeTestNetwork, netnsUnavailable, type TestHost, type TestNetwork } from '../support/netns.js';

const unavailable = netnsUnavailable();

test.describe('the console across hosts', () => {
  test.skip(unavailable !== null, `no test hosts: ${unavailable}`);

  let network: TestNetwork;
  let home: string;
  let capsule: Capsule;
  let alpha: Door;
  let beta: Door;
  let consoleUrl: string;
  /** Sent from the test process to alpha over the test network, before the console opens. */
  let remoteTask: { id: string; contextId: string; text: string };
  const stops: (() => Promise<void>)[] = [];

  /** Starts `mur <args>` on a test host, under that host's own MURMUR_HOME, and parses its announcement. */
  async function murOn(host: TestHost, args: string[]): Promise<Record<string, unknown>> {
    const hostHome = path.join(home, host.name);
    mkdirSync(hostHome, { recursive: true });
    const proc = spawnMur(args, hostHome, {}, (command, argv, options) => network.spawnOn(host, command, argv, options));
    stops.push(stopper(proc.child));
    return JSON.parse(await proc.first) as Record<string, unknown>;
  }

  async function doorOn(host: TestHost): Promise<Door> {
    const line = await murOn(host, ['run', capsule.dir, '--host', host.address, '--port', '0', '--json']);
    const url = String(line.url);
    return {
      sessionId: String(line.sessionId),
      url,
      address: new URL(url).host,
      recordsDir: String(line.recordsDir),
      name: String(line.name),
      stop: async () => undefined,
    };
  }

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    network = makeTestNetwork(['alpha', 'beta', 'console']);
    home = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-hosts-'));
    capsule = makeCapsule({
      name: 'far-away',
      network: { authentication: { scheme: 'bearer', credentials: { watcher: { scopes: ['GetTask', 'ListTasks', 'murmur.WatchSession'] } } } },
      rules: [
        {
          match: '^count',
          turns: [{ text: ['counting'], tools: [{ tool: 'bash', input: { command: 'echo 7 stars' } }] }, { answer: 'counted {{tool.stdout}}' }],
        },
      ],
    });
    [alpha, beta] = await Promise.all([doorOn(network.host('alpha')), doorOn(network.host('beta'))]);
    for (const door of [alpha, beta]) expect(new URL(door.url).hostname).toMatch(/^10\./);
    // Alpha's token reaches the console in a file (--token-file); beta's is typed in the console by the operator.
    const alphaToken = path.join(home, 'alpha.token');
    writeFileSync(alphaToken, `${tokenOf(alpha, 'operator')}\n`);
    const consoleHost = network.host('console');
    const line = await murOn(consoleHost, [
      'console',
      '--host',
      consoleHost.address,
      '--port',
      '0',
      '--json',
      '--door',
      alpha.url,
      '--token-file',
      alphaToken,
      '--door',
      beta.url,
    ]);
    consoleUrl = String(line.url);
    expect(new URL(consoleUrl).hostname).toBe(consoleHost.address);
    const text = unique('count the far stars');
    const task = await new MurmurClient(alpha.url, { token: tokenOf(alpha, 'operator') }).sendText(text);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    remoteTask = { id: task.id, contextId: task.contextId, text };
  });

  test.afterAll(async () => {
    // Each step guards itself: a setup that failed half-way still leaves no process, namespace or link behind.
    await Promise.all(stops.map((stop) => stop()));
    network?.remove();
    capsule?.remove();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  function added(page: Page) {
    return page.getByRole('region', { name: 'Added doors', exact: true });
  }

  test('the console, on its own host, lists both doors; alpha opens live with the token of its file', async ({ page }) => {
    await page.goto(`${consoleUrl}/#/`);
    await expect(added(page).getByRole('listitem')).toHaveCount(2);
    await expect(added(page).getByRole('listitem').filter({ hasText: alpha.url })).toContainText('with a token file');
    await expect(added(page).getByRole('listitem').filter({ hasText: beta.url })).not.toContainText('with a token file');
    await added(page).getByRole('link', { name: alpha.url }).click();
    await expect(page).toHaveURL(new RegExp(`#/door/${alpha.address.replaceAll('.', '\\.')}$`));
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await expect(page.getByRole('heading', { name: 'This door needs a token' })).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('link', { name: remoteTask.id })).toBeVisible();
    // The extended card, read with the file's token too: only the extended card names the capsule extension.
    const card = page.getByRole('region', { name: 'Agent card' });
    await expect(card.getByText('https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1', { exact: true })).toHaveCount(1);
    await expect(card).not.toContainText('Give a token to read the extended card.');
  });

  test('a task sent from the console to alpha streams back live over the test network', async ({ page }) => {
    await openDoor(page, consoleUrl, alpha.address);
    const id = await sendFromConsole(page, unique('count the near stars'));
    const timeline = timelineOf(page, alpha);
    await expect(timeline.getByRole('link', { name: id })).toBeVisible();
    await expect(timeline.getByText('counted 7 stars')).not.toHaveCount(0);
    // The answer's text streams before the task's last status: on a loaded machine GetTask can still say WORKING.
    const client = new MurmurClient(alpha.url, { token: tokenOf(alpha, 'operator') });
    await expect.poll(async () => (await client.getTask(id)).status.state).toBe('TASK_STATE_COMPLETED');
  });

  test('beta, typed in Connect to a door, asks for its own token, which is kept for beta alone', async ({ page }) => {
    await page.goto(`${consoleUrl}/#/`);
    // A 10.x address the console was not started with is refused in the page, and by its proxy.
    await page.getByLabel('Door address').fill(`${network.rootAddress}:9`);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      `${network.rootAddress} is not a loopback address. mur console only reaches doors on this host: use a loopback address such as 127.0.0.1:41873 (or localhost, [::1]), or a door added with mur console --door.`,
    );
    const refused = await page.request.get(`${consoleUrl}/api/door/${network.rootAddress}:9/.well-known/agent-card.json`);
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'not_loopback' });

    await page.getByLabel('Door address').fill(beta.url);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page).toHaveURL(new RegExp(`#/door/${beta.address.replaceAll('.', '\\.')}$`));
    await expect(page.getByRole('heading', { name: 'This door needs a token' })).toBeVisible();
    // Alpha's token is not beta's: the proxy never sends a token file's token to another door.
    await page.getByLabel('Token', { exact: true }).fill(tokenOf(alpha, 'operator'));
    await page.getByRole('button', { name: 'Save token' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'this token was not minted by this session' })).toBeVisible();
    await page.getByLabel('Token', { exact: true }).fill(tokenOf(beta, 'operator'));
    await page.getByRole('button', { name: 'Save token' }).click();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await expect(page.getByRole('navigation', { name: 'Task pages' })).toContainText('in total');
    const kept = await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('murmur-console.token')));
    expect(kept).toEqual([`murmur-console.token.${beta.address}`]);

    // Alpha still opens with its file's token; beta's typed token is not sent there.
    await page.goto(`${consoleUrl}/#/door/${alpha.address}`);
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await expect(page.getByText('mur console sends this door the token of the file it was started with (--token-file).')).toBeVisible();
  });

  test("the console's file-reading API answers the browser 403 not_loopback: it is not on the console's host", async ({ page }) => {
    const message = `mur console reads this machine's records and formations for a loopback peer only, not for ${network.rootAddress}`;
    for (const api of ['/api/records/sessions', `/api/records/tasks/${remoteTask.id}`]) {
      const answer = await page.request.get(`${consoleUrl}${api}`);
      expect(answer.status(), api).toBe(403);
      expect(await answer.json(), api).toEqual({ error: 'not_loopback', message });
    }
    // The formations API answers it the added doors' formations alone: alpha and beta are in none.
    const formations = await page.request.get(`${consoleUrl}/api/formations`);
    expect(formations.status()).toBe(200);
    expect(await formations.json()).toEqual({ formations: [] });
  });

  // From here on the console reads the record from the door itself: the door's record surface.

  test("a remote task's page shows its full record and its trace", async ({ page }) => {
    await page.goto(`${consoleUrl}/#/door/${alpha.address}/tasks/${remoteTask.id}`);
    await expect(page.getByRole('region', { name: 'Input' })).toContainText(remoteTask.text);
    const record = page.getByRole('table', { name: 'Task record' });
    await expect(record.getByRole('row').filter({ hasText: 'Turn 1' })).toBeVisible();
    await expect(record.getByRole('row').filter({ hasText: 'Tool call bash (exit 0)' })).toContainText('$ echo 7 stars');
    await expect(record.getByRole('row').filter({ hasText: 'Answer' })).toContainText('counted 7 stars');
    await expect(record.getByRole('row').filter({ hasText: 'Ended completed' })).toBeVisible();
    // Where they fall on the task's axis is the trace's: a span for the tool call, one for each turn.
    const trace = page.getByTestId('trace-grid');
    await expect(trace.locator('[data-span-kind="tool"]')).toHaveCount(1);
    await expect(trace.locator('[data-span-kind="turn"]')).toHaveCount(2);
  });

  test('the search finds the remote task by a word of its input', async ({ page }) => {
    await openDoor(page, consoleUrl, alpha.address);
    await page.getByLabel('Search tasks').fill(remoteTask.text.split(' ').at(-1)!);
    await page.getByLabel('Search tasks').press('Enter');
    const pager = page.getByRole('navigation', { name: 'Task pages' });
    await expect(pager).toContainText('tasks 1–1 of 1 in total');
    await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('link')).toHaveText([remoteTask.id]);
  });

  test("the remote session's record exports as NDJSON", async ({ page }) => {
    await openDoor(page, consoleUrl, alpha.address);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export session record (NDJSON)' }).click();
    const lines = readFileSync(await (await download).path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ kind: 'session', sessionId: alpha.sessionId });
    expect(lines.find((l) => l.kind === 'task' && l.taskId === remoteTask.id)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      contextId: remoteTask.contextId,
      answer: 'counted 7 stars',
    });
    expect(lines.filter((l) => l.taskId === remoteTask.id).map((l) => l.kind)).toEqual(['task', 'input', 'turn', 'tool-call', 'turn', 'answer', 'end']);
  });

  test.describe('a formation on beta (--host), watched from the console host', () => {
    let folder: FormationFolder;
    /** `mur run --roster --json`'s announcement. */
    let formation: { formation: string; pid: number; members: { member: string; url: string; sessionId: string }[] };
    let formationConsoleUrl: string;
    /** The call made from the console below: the planner's task, and the worker's task the call started. */
    let call: { plannerTask: string; workerTask: string; text: string } | null = null;
    const member = (name: string) => formation.members.find((m) => m.member === name)!;
    const addressOf = (name: string) => new URL(member(name).url).host;

    test.beforeAll(async () => {
      test.setTimeout(90_000);
      folder = makeFormation({
        name: 'tally',
        entry: 'planner',
        members: {
          planner: {
            acceptance: 'queue',
            turns: [
              { tools: [{ tool: 'call-member', input: { member: 'worker', task: 'tally: {{task.text}}' } }], answer: 'waiting' },
              { answer: 'planner heard {{continuation}}' },
            ],
          },
          worker: { callee: true, turns: [{ answer: 'worker tallied {{task.text}}' }] },
        },
        rules: [{ from: 'planner', to: ['worker'] }],
      });
      const betaHost = network.host('beta');
      formation = (await murOn(betaHost, ['run', '--roster', folder.roster, '--host', betaHost.address, '--json'])) as typeof formation;
      // Its members are public doors: the console needs no token for them (docs/console.md, "Across hosts").
      const doors = formation.members.flatMap((m) => ['--door', m.url]);
      const consoleHost = network.host('console');
      const line = await murOn(consoleHost, ['console', '--host', consoleHost.address, '--port', '0', '--json', ...doors]);
      formationConsoleUrl = String(line.url);
    });

    test.afterAll(() => folder?.remove());

    test("every member's door is on beta's address, and the console lists each", async ({ page }) => {
      expect(formation.members.map((m) => m.member)).toEqual(['planner', 'worker']);
      for (const m of formation.members) expect(new URL(m.url).hostname).toBe(network.host('beta').address);
      await page.goto(`${formationConsoleUrl}/#/`);
      await expect(added(page).getByRole('listitem')).toHaveCount(2);
      for (const m of formation.members) await expect(added(page).getByRole('link', { name: m.url })).toBeVisible();
    });

    test('a task sent from the console to the planner calls the worker on beta; both doors show the call', async ({ page }) => {
      await openDoor(page, formationConsoleUrl, addressOf('planner'));
      const text = unique('count the beta sheep');
      const plannerTask = await sendFromConsole(page, text);
      const timeline = timelineOf(page, addressOf('planner'));
      await expect(timeline.getByText(`worker tallied tally: ${text}`)).not.toHaveCount(0);
      const answered = await new MurmurClient(member('planner').url).getTask(plannerTask);
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');

      // The worker's door holds the task the call started, with the planner's words; the console opens it live.
      const workerTasks = await new MurmurClient(member('worker').url).listTasks({});
      expect(workerTasks.tasks).toHaveLength(1);
      const [workerTask] = workerTasks.tasks;
      expect(workerTask.status.state).toBe('TASK_STATE_COMPLETED');
      await openDoor(page, formationConsoleUrl, addressOf('worker'));
      await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('link')).toHaveText([workerTask.id]);
      call = { plannerTask, workerTask: workerTask.id, text };
    });

    // The formation is registered on beta only: the console discovers it from its members' added doors
    // (docs/console.md, "Formations discovered from added doors"), keyed with beta's address.
    test("the formation view shows the members and the planner's call to the worker", async ({ page }) => {
      test.skip(call === null, 'needs the call made above');
      const key = `${formation.formation}-${formation.pid}@${network.host('beta').address}`;
      await page.goto(`${formationConsoleUrl}/#/`);
      const listed = page.getByRole('region', { name: 'Formations of added doors' });
      await expect(listed.getByRole('link', { name: formation.formation })).toHaveAttribute('href', `#/formation/${encodeURIComponent(key)}`);
      await listed.getByRole('link', { name: formation.formation }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Formation ${formation.formation}`);
      const members = page.getByRole('table', { name: 'Members' });
      for (const name of ['planner', 'worker']) await expect(members.getByRole('row').filter({ hasText: name })).toContainText(member(name).sessionId);
      await expect(members.getByRole('row').filter({ hasText: 'planner' })).toContainText('entry');
      const toWorker = page.getByRole('table', { name: 'Calls' }).getByRole('row').filter({ hasText: 'planner → worker' });
      await expect(toWorker).toContainText('completed');
      await expect(toWorker.getByRole('link', { name: call!.plannerTask })).toBeVisible();
      await expect(toWorker.getByRole('link', { name: call!.workerTask })).toBeVisible();
      // The worker's task, one click away on the worker's door, with the planner's words.
      await page.goto(`${formationConsoleUrl}/#/door/${addressOf('worker')}/tasks/${call!.workerTask}`);
      await expect(page.getByRole('region', { name: 'Input' })).toContainText(`tally: ${call!.text}`);
    });
  });
});
