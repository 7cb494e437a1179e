/**
 * Where the time and the tokens went (docs/console.md): against a real door and mur console in Chromium, the rollups
 * page's totals equal what the record API holds of the same tasks (counted here, task by task), with the tasks table's
 * filters; the charts are reached by keyboard; a task page's tokens-per-turn table matches the record's turns.
 */
import { type ConsoleTaskRecordPage, type ConsoleTaskSummariesPage, MURMUR_STATE_WORD, type TaskRecordEntry } from '@murmur/protocol';
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { expect, test } from '../support/fixtures.js';

let capsule: Capsule;
test.beforeAll(() => {
  capsule = makeCapsule({
    name: 'rollups',
    rules: [
      {
        match: '^build',
        turns: [
          { usage: { input: 1200, output: 40, cached: 1000 }, tools: [{ tool: 'bash', input: { command: 'sleep 0.05; echo built' } }] },
          { usage: { input: 1500, output: 60, cached: 1100 }, answer: '{{tool.stdout}}' },
        ],
      },
      { match: '^deploy', turns: [{ usage: { input: 300, output: 9 }, ask: 'Which branch?' }, { answer: 'deployed {{reply}}' }] },
    ],
    defaultTurns: [{ usage: { input: 20, output: 2 }, answer: 'no rule' }],
  });
});
// The door is stopped after the test: its task left waiting for input would show on later pages (running now).
let stopDoor: (() => Promise<void>) | null = null;
test.afterEach(async () => {
  await stopDoor?.();
  stopDoor = null;
});
test.afterAll(() => capsule?.remove());

const n = (v: number) => v.toLocaleString('en-US');

test('the rollups’ totals equal what the records hold, with the tasks table’s filters; a task’s tokens per turn match its turns', async ({
  page,
  murmur,
  request,
}) => {
  // Six tasks, three pages and the record API read task by task, twice: longer than 60 s on a loaded machine.
  test.setTimeout(180_000);
  const door = await murmur.startDoor(capsule.dir);
  stopDoor = () => door.stop();
  const client = clientOf(door);
  const built = await client.sendText('build the kite', { returnImmediately: false });
  await client.sendText('build the boat', { returnImmediately: false });
  const deploy = await client.sendText('deploy please', { returnImmediately: false });
  expect(deploy.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  await client.reply(deploy.id, 'main', { returnImmediately: false });
  await client.sendText('hello', { returnImmediately: false });
  await client.sendText('deploy later', { returnImmediately: false }); // left waiting for its reply

  /** What the record API holds of the tasks a filter keeps: counted task by task, as the page must not. */
  async function counted(filter: string) {
    const list = (await (
      await request.get(`${murmur.consoleUrl}/api/records/sessions/${door.sessionId}/tasks?limit=1000${filter}`)
    ).json()) as ConsoleTaskSummariesPage;
    const tokens = { input: 0, output: 0, cached: 0 };
    let turns = 0;
    let toolCalls = 0;
    for (const task of list.tasks) {
      const record = (await (await request.get(`${murmur.consoleUrl}/api/records/tasks/${task.taskId}?limit=1000`)).json()) as ConsoleTaskRecordPage;
      toolCalls += record.entries.filter((e) => e.kind === 'tool-call').length;
      for (const e of record.entries) {
        if (e.kind !== 'turn') continue;
        turns += 1;
        tokens.input += e.inputTokens ?? 0;
        tokens.output += e.outputTokens ?? 0;
        tokens.cached += e.cachedTokens ?? 0;
      }
    }
    return { tasks: list.total, turns, toolCalls, tokens };
  }

  const all = await counted('');
  expect(all.tasks).toBe(5);
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/rollups`);
  await expect(page.getByTestId('rollup-tasks')).toHaveText(n(all.tasks));
  await expect(page.getByTestId('rollup-turns')).toHaveText(n(all.turns));
  await expect(page.getByTestId('rollup-tool-calls')).toHaveText(n(all.toolCalls));
  await expect(page.getByTestId('rollup-tokens-input')).toHaveText(n(all.tokens.input));
  await expect(page.getByTestId('rollup-tokens-output')).toHaveText(n(all.tokens.output));
  await expect(page.getByTestId('rollup-tokens-cached')).toHaveText(n(all.tokens.cached));
  await expect(page.getByTestId('rollup-by-state')).toHaveText(
    `1 ${MURMUR_STATE_WORD.TASK_STATE_INPUT_REQUIRED} · 4 ${MURMUR_STATE_WORD.TASK_STATE_COMPLETED}`,
  );
  // The tasks-by-state chart's table sums to the tasks; the slowest tools name bash.
  const stateRows = page.getByTestId('chart-states').getByRole('table').locator('tbody tr');
  const perBucket = await stateRows.evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].reduce((a, td) => a + Number(td.textContent?.replace(/,/g, '') ?? 0), 0)),
  );
  expect(perBucket.reduce((a, b) => a + b, 0)).toBe(all.tasks);
  await expect(page.getByTestId('chart-tools').getByRole('rowheader', { name: 'bash' })).toBeVisible();

  // Every chart's image (the figure's drawing, named by its caption and summary) is reached by Tab.
  const images = page.locator('figure [role="img"]');
  const named = await images.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  const reached = new Set<string>();
  await page.getByRole('button', { name: 'Read again' }).focus();
  for (let i = 0; i < 40 && reached.size < named.length; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate(() =>
      document.activeElement?.getAttribute('role') === 'img' ? document.activeElement.getAttribute('aria-label') : null,
    );
    if (label) reached.add(label);
  }
  expect([...reached].sort()).toEqual([...named].sort());

  // The tasks table's filters: its link carries them, and the rollup covers the tasks it lists.
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}?q=build`);
  await expect(page.getByText(/Found “build”/)).toContainText('of 2 in total');
  await page.getByRole('link', { name: 'Where the time and the tokens went' }).click();
  const builds = await counted('&q=build');
  await expect(page).toHaveURL(/\/rollups\?q=build$/);
  await expect(page.getByTestId('rollup-tasks')).toHaveText(n(builds.tasks));
  await expect(page.getByTestId('rollup-tokens-input')).toHaveText(n(builds.tokens.input));
  await expect(page.getByTestId('rollup-tokens-cached')).toHaveText(n(builds.tokens.cached));

  // One task: its tokens-per-turn table holds a row per turn with the record's numbers.
  const record = (await (await request.get(`${murmur.consoleUrl}/api/records/tasks/${built.id}`)).json()) as ConsoleTaskRecordPage;
  const turns = record.entries.filter((e): e is Extract<TaskRecordEntry, { kind: 'turn' }> => e.kind === 'turn');
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${built.id}`);
  const tokenRows = page.getByTestId('task-turn-tokens').getByRole('table').locator('tbody tr');
  await expect(tokenRows).toHaveCount(turns.length);
  const shown = await tokenRows.evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent?.trim() ?? '')));
  expect(shown).toEqual(turns.map((t) => [`Turn ${t.turn}`, n(t.inputTokens ?? 0), n(t.outputTokens ?? 0), n(t.cachedTokens ?? 0)]));
  await expect(page.getByTestId('task-time-split').locator('[role="img"]')).toHaveAttribute('aria-label', /model calls .* tool calls /);
});
