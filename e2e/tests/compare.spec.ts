/**
 * Compare two runs (docs/console.md, "Compare two runs"): two runs of one script-driver scenario whose shell tool
 * reads a file the test changes between them, picked from the tasks table; the compare page aligns their steps, marks
 * the output that differs and the steps that do not; the shareable URL reopens the pair; a pair from two sessions
 * still compares once one capsule is gone.
 */
import { chownSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { openDoor } from '../support/console.js';
import { type Door, expect, test } from '../support/fixtures.js';

let capsule: Capsule;
let reopening: Capsule;
test.beforeAll(() => {
  // Its on_task_end hook changes the notes and reopens the task once: two attempts reading different notes.
  const reread = { tools: [{ tool: 'bash', input: { command: 'cat notes.txt' } }], answer: 'notes: {{tool.stdout}}' };
  reopening = makeCapsule({
    name: 'reopened',
    lifecycle: { task_acceptance: 'queue', max_task_reopens: 1 },
    hooks: {
      on_task_end: [
        { name: 'reread', command: `if grep -q '"attempt":1,'; then printf 'alpha\\nomega\\n' > notes.txt; echo '{"reopen": "Read them again."}'; fi` },
      ],
    },
    rules: [{ match: '^read the notes', turns: [reread, reread] }],
  });
  capsule = makeCapsule({
    name: 'compared',
    rules: [
      {
        match: '^read the notes',
        turns: [
          {
            tools: [
              { tool: 'bash', input: { command: 'echo listing' } },
              { tool: 'bash', input: { command: 'cat notes.txt' } },
            ],
            answer: 'notes: {{tool.stdout}}',
          },
        ],
      },
    ],
  });
});
test.afterAll(() => {
  capsule?.remove();
  reopening?.remove();
});

/**
 * Writes the notes the scenario's shell tool reads, in the door's workdir (docs/sandbox.md), owned as the workdir is:
 * a door run as root gives commands the session's own uid, which may rewrite the notes only if they are its own.
 */
function writeNotes(door: Door, text: string): void {
  const workdir = path.join(door.recordsDir, 'work');
  const file = path.join(workdir, 'notes.txt');
  writeFileSync(file, text);
  const owner = statSync(workdir);
  chownSync(file, owner.uid, owner.gid);
}

async function run(door: Door, notes: string): Promise<string> {
  writeNotes(door, notes);
  const task = await clientOf(door).sendText('read the notes');
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  return task.id;
}

async function pick(page: Page, consoleUrl: string, door: Door, taskId: string) {
  await openDoor(page, consoleUrl, door.address);
  const box = page.getByRole('table', { name: 'Tasks' }).getByRole('checkbox', { name: `Compare ${taskId}` });
  await box.check();
  await expect(box).toBeChecked();
}

/** The compare page's aligned steps, each a list item whose summary says its verdict in words. */
const stepsOf = (page: Page) => page.getByRole('list', { name: 'Aligned steps' }).getByRole('listitem');
const endsOf = (page: Page) => page.getByRole('list', { name: 'Input, answer and ending' }).getByRole('listitem');

/** The cells of the row a table heads `name`: Run A, Run B, Difference. */
const cellsOf = (table: Locator, name: string) =>
  table
    .getByRole('row')
    .filter({ has: table.page().getByRole('rowheader', { name, exact: true }) })
    .getByRole('cell');

/** What the compare page shows for two runs whose second `cat notes.txt` read `alpha / <second line>`. */
async function expectNotesCompared(page: Page, second: string) {
  const steps = stepsOf(page);
  await expect(steps).toHaveCount(4);
  await expect(steps.nth(0).locator('summary')).toContainText(/^= unchanged · 1\. Turn 1/);
  await expect(steps.nth(1).locator('summary')).toContainText(/^= unchanged · 2\. Tool call bash \(exit 0\)/);
  await expect(steps.nth(2).locator('summary')).toContainText(/^≠ changed: output · 3\. Tool call bash \(exit 0\)/);
  await expect(steps.nth(3).locator('summary')).toContainText(/^= unchanged · 4\. Turn 2/);
  // The changed step is open: its fields side by side and the output's line diff, marked in text.
  const changed = steps.nth(2);
  const fields = changed.getByRole('table', { name: '3. Tool call bash (exit 0): A and B' });
  await expect(cellsOf(fields, 'input')).toHaveText(['$ cat notes.txt', '$ cat notes.txt', 'same']);
  await expect(cellsOf(fields, 'exit code')).toHaveText(['0', '0', 'same']);
  await expect(cellsOf(fields, 'output').nth(2)).toContainText('differs');
  const diff = changed.getByLabel('Difference in output, A to B');
  await expect(diff).toContainText('alpha');
  await expect(diff.locator('del')).toHaveText(['− beta']);
  await expect(diff.locator('ins')).toHaveText([`+ ${second}`]);
  // The unchanged steps stay folded; the step's fields say `same`.
  await expect(steps.nth(1).locator('details')).not.toHaveAttribute('open', '');
  await expect(page.getByText('4 aligned steps: 3 unchanged, 1 changed, 0 only in A, 0 only in B.')).toBeVisible();
  // The answer differs (by words on its one line); the input and the ending do not.
  const ends = endsOf(page);
  await expect(ends.nth(0).locator('summary')).toContainText(/^= unchanged · Input: Operator's message/);
  await expect(ends.nth(1).locator('summary')).toContainText(/^≠ changed: text · Answer/);
  await expect(ends.nth(1).getByLabel('Difference in text, A to B').locator('del')).toHaveText(['− beta']);
  await expect(ends.nth(2).locator('summary')).toContainText(/^= unchanged · Ending: Ended completed/);
  await expect(cellsOf(page.getByRole('table', { name: 'Runs' }), 'Tool calls')).toHaveText(['2', '2', 'same']);
}

test('two runs picked from the table: aligned steps, the changed output marked, the unchanged steps unchanged; the URL reopens the pair', async ({
  page,
  murmur,
}) => {
  const door = await murmur.startDoor(capsule.dir);
  const first = await run(door, 'alpha\nbeta\n');
  const second = await run(door, 'alpha\ngamma\n');

  await pick(page, murmur.consoleUrl, door, first);
  await expect(page.getByText('(pick one more, from this table or another session’s)')).toBeVisible();
  await page
    .getByRole('table', { name: 'Tasks' })
    .getByRole('checkbox', { name: `Compare ${second}` })
    .check();
  // Keyboard: the link is reached by Tab and followed with Enter.
  const compare = page.getByRole('link', { name: 'Compare the picked tasks' });
  await compare.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#/compare/${first}/${second}$`));
  await expect(page.getByRole('heading', { name: 'Compare two runs', level: 1 })).toBeVisible();
  await expectNotesCompared(page, 'gamma');

  // A folded step opens from the keyboard.
  await stepsOf(page).nth(1).locator('summary').focus();
  await page.keyboard.press('Enter');
  await expect(stepsOf(page).nth(1).getByRole('table')).toContainText('listing');

  // The shareable URL, in a fresh page, shows the same pair.
  const shared = await page.getByText('Link to this comparison:').getByRole('link').getAttribute('href');
  expect(shared).toBe(`#/compare/${first}/${second}`);
  const other = await page.context().newPage();
  await other.goto(`${murmur.consoleUrl}/${shared}`);
  await expectNotesCompared(other, 'gamma');
  await other.close();

  // Swap: B against A, the diff reversed.
  await page.getByRole('button', { name: 'Swap A and B' }).click();
  await expect(page).toHaveURL(new RegExp(`#/compare/${second}/${first}$`));
  await expect(stepsOf(page).nth(2).getByLabel('Difference in output, A to B').locator('del')).toHaveText(['− gamma']);
  await door.stop();
});

test('a pair from two sessions compares after one capsule is gone', async ({ page, murmur }) => {
  const one = await murmur.startDoor(capsule.dir);
  const two = await murmur.startDoor(capsule.dir);
  const first = await run(one, 'alpha\nbeta\n');
  const second = await run(two, 'alpha\ndelta\n');

  // One pick from each session's table.
  await pick(page, murmur.consoleUrl, one, first);
  await pick(page, murmur.consoleUrl, two, second);
  await page.getByRole('link', { name: 'Compare the picked tasks' }).click();
  await expect(page).toHaveURL(new RegExp(`#/compare/${first}/${second}$`));
  await expectNotesCompared(page, 'delta');
  await expect(cellsOf(page.getByRole('table', { name: 'Runs' }), 'Session')).toHaveText([one.sessionId, two.sessionId, 'differs']);

  // The second capsule stops: the record API reads its records folder, and the same URL shows the same pair.
  await two.stop();
  await page.reload();
  await expectNotesCompared(page, 'delta');
  await one.stop();
});

test('a task no records folder holds is named; a bad attempt is refused in words', async ({ page, murmur }) => {
  const door = await murmur.startDoor(capsule.dir);
  const task = await run(door, 'alpha\nbeta\n');
  await page.goto(`${murmur.consoleUrl}/#/compare/${task}/tsk_nowhere`);
  await expect(page.getByRole('alert').filter({ hasText: 'Run B: no records folder on this host holds task tsk_nowhere.' })).toBeVisible();
  await page.goto(`${murmur.consoleUrl}/#/compare/${task}/${task}?a=1&b=2`);
  await expect(page.getByRole('alert').filter({ hasText: `Task ${task} has no attempt 2: its record holds 1.` })).toBeVisible();
  await door.stop();
});

test('two attempts of a reopened task, from its page', async ({ page, murmur }) => {
  const door = await murmur.startDoor(reopening.dir);
  const task = await run(door, 'alpha\nbeta\n');
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${task}`);
  const record = page.getByRole('table', { name: 'Task record' });
  await expect(record.getByRole('row').filter({ hasText: 'Reopened by reread: attempt 2' })).toBeVisible();
  await page.getByRole('link', { name: 'Compare its attempts (1 and 2)' }).click();
  await expect(page).toHaveURL(new RegExp(`#/compare/${task}/${task}\\?a=1&b=2$`));
  const steps = stepsOf(page);
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(0).locator('summary')).toContainText(/^= unchanged · 1\. Turn 1/);
  await expect(steps.nth(1).locator('summary')).toContainText(/^≠ changed: output · 2\. Tool call bash \(exit 0\)/);
  await expect(steps.nth(1).getByLabel('Difference in output, A to B').locator('ins')).toHaveText(['+ omega']);
  await expect(steps.nth(2).locator('summary')).toContainText(/^= unchanged · 3\. Turn 2/);
  // Attempt 1 ended by the reopen, which opened attempt 2; only the last attempt's answer is in the record.
  const ends = endsOf(page);
  await expect(ends.nth(0).locator('summary')).toContainText("Input: Operator's message ↔ Reopened by reread: attempt 2");
  await expect(ends.nth(1).locator('summary')).toContainText(/^B only in B · Answer/);
  await expect(ends.nth(2).locator('summary')).toContainText('Ending: Reopened by reread: attempt 2 ↔ Ended completed');
  await expect(cellsOf(page.getByRole('table', { name: 'Runs' }), 'Task')).toHaveText([`${task} · attempt 1`, `${task} · attempt 2`, 'same task']);
  await door.stop();
});
