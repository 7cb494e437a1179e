/**
 * The task's durable record (docs/console.md): the operator's input in the tasks table, the timeline's task headers
 * and the task page; an ended task's turns and tool calls with durations after its capsule stopped; replies shown as
 * the operator's messages; the NDJSON export; Cancel disabled on an ended task.
 */
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { openDoor, timelineOf } from '../support/console.js';
import { expect, test } from '../support/fixtures.js';

let capsule: Capsule;
test.beforeAll(() => {
  capsule = makeCapsule({
    name: 'recorded',
    rules: [
      {
        match: '^build (\\w+)',
        turns: [{ thinking: ['planning'], tools: [{ tool: 'bash', input: { command: 'sleep 0.3; echo built {{match.1}}' } }], answer: '{{tool.stdout}}' }],
      },
      { match: '^deploy', turns: [{ ask: 'Which branch?' }, { answer: 'deployed {{reply}}' }] },
    ],
  });
});
test.afterAll(() => capsule?.remove());

test('the input everywhere, and an ended task’s record after its capsule stopped', async ({ page, murmur }) => {
  const door = await murmur.startDoor(capsule.dir);
  const client = clientOf(door);
  const built = await client.sendText('build kite please\nwith a second line');
  expect(built.status.state).toBe('TASK_STATE_COMPLETED');
  const asked = await client.sendText('deploy the thing', { returnImmediately: true });
  await expect.poll(async () => (await client.getTask(asked.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const deployed = await client.reply(asked.id, 'release-9');
  expect(deployed.status.state).toBe('TASK_STATE_COMPLETED');

  // The tasks table and the timeline's task headers name each task by its input's first line.
  await openDoor(page, murmur.consoleUrl, door.address);
  const table = page.getByRole('table', { name: 'Tasks' });
  const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: built.id }) });
  await expect(row.getByRole('cell', { name: 'build kite please', exact: true })).toBeVisible();
  await expect(
    table
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: asked.id }) })
      .getByRole('cell', { name: 'deploy the thing' }),
  ).toBeVisible();
  await expect(timelineOf(page, door).getByText('“build kite please”')).toBeVisible();

  // The capsule stops: its task's page still shows the record, from the records folder.
  await door.stop();
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${built.id}`);
  await expect(page.getByRole('region', { name: 'Input' })).toContainText('build kite please\nwith a second line');
  const record = page.getByRole('table', { name: 'Task record' });
  const call = record.getByRole('row').filter({ hasText: 'Tool call bash (exit 0)' });
  await expect(call).toContainText('$ sleep 0.3; echo built kite');
  await expect(call.getByRole('cell').nth(2)).toHaveText(/^\d{3} ms$|^\d\.\d s$/);
  await expect(record.getByRole('row').filter({ hasText: 'Turn 1' })).toBeVisible();
  await expect(record.getByRole('row').filter({ hasText: 'Answer' })).toContainText('built kite');
  await expect(record.getByRole('row').filter({ hasText: 'Ended completed' })).toBeVisible();
  const recordPanel = page.getByRole('region', { name: 'Record' });
  await expect(recordPanel.getByText('Tool calls')).toBeVisible();
  // Absolute times on demand, local and UTC.
  await recordPanel.getByRole('button', { name: 'Exact times' }).click();
  await expect(recordPanel.getByRole('button', { name: 'Exact times' })).toHaveAttribute('aria-pressed', 'true');
  await expect(call).toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC/);
  await page.screenshot({ path: test.info().outputPath('ended-task-record.png'), fullPage: true });

  // The export parses as NDJSON and matches what GetTask answered while the door ran.
  const href = await recordPanel.getByRole('link', { name: 'Export record (NDJSON)' }).getAttribute('href');
  const ndjson = await (await page.request.get(new URL(href!, `${murmur.consoleUrl}/`).toString())).text();
  const [head, ...entries] = ndjson
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(head).toMatchObject({ kind: 'task', taskId: built.id, contextId: built.contextId, state: built.status.state, updatedAt: built.status.timestamp });
  expect(entries.map((e: { kind: string }) => e.kind)).toEqual(['input', 'turn', 'tool-call', 'turn', 'answer', 'end']);

  // A reply is the operator's message in the record; an ended task's Cancel is disabled.
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${asked.id}`);
  const reply = page.getByRole('table', { name: 'Task record' }).getByRole('row').filter({ hasText: "Operator's reply" });
  await expect(reply).toContainText('release-9');
  await expect(page.getByRole('table', { name: 'Task record' }).getByRole('row').filter({ hasText: 'Asked for input' })).toContainText('Which branch?');
});

test('Cancel is disabled on an ended task', async ({ page, murmur }) => {
  const door = await murmur.startDoor(capsule.dir);
  const task = await clientOf(door).sendText('deploy nothing', { returnImmediately: true });
  await clientOf(door).cancelTask(task.id);
  await page.goto(`${murmur.consoleUrl}/#/door/${door.address}/tasks/${task.id}`);
  await expect(page.getByRole('region', { name: 'Status', exact: true }).getByText('TASK_STATE_CANCELED')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Cancel task' })).toBeDisabled();
  await door.stop();
});
