/**
 * The trace's compaction and delegation spans (issue 37; docs/console.md, "The task page"), on real doors: a script
 * door whose scripted model has a window of 8,000 tokens compacts its conversation before its third turn (older tool
 * output elided, as apps/door/test/compaction.test.ts drives it), and examples/delegation's lead hands its task to the
 * researcher sub-capsule, which runs in a session of its own and posts its outcome back. Each span is in the trace
 * where the record puts it, selected into the detail panel with its facts; axe finds nothing serious at 1280×800,
 * light and dark, with the span selected.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { axeViolations, FAILING_IMPACTS } from '../support/axe.js';
import { type Capsule, clientOf, makeCapsule } from '../support/capsules.js';
import { type Door, expect, REPO, test } from '../support/fixtures.js';

const LEAD = path.join(REPO, 'examples/delegation/lead');

/** The task page of `taskId` at 1280×800, its trace's row named by `span` selected into the detail panel. */
async function selectSpan(page: Page, consoleUrl: string, door: Door, taskId: string, span: RegExp) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${consoleUrl}/#/door/${door.address}/tasks/${taskId}`);
  const grid = page.getByRole('treegrid', { name: `Trace of task ${taskId}` });
  const row = grid.getByRole('row', { name: span });
  await row.click();
  await expect(row).toHaveAttribute('aria-selected', 'true');
  return { grid, row, detail: page.getByRole('region', { name: span }) };
}

test.describe('compaction and delegation spans in the trace', () => {
  let capsule: Capsule;
  let compacting: Door;
  let compacted: string;
  let lead: Door;
  let delegating: string;

  test.beforeAll(async ({ murmur }) => {
    test.setTimeout(120_000);
    // Two turns of 8,000 characters of tool output, then an answer: past half the window, the first output is elided.
    capsule = makeCapsule({
      name: 'compacting',
      inference: {
        driver: 'scripted',
        choices: { scripted: { driver: 'script', script: 'script.yaml', context_window: 8000 } },
        compaction: { threshold: 0.5, keep_turns: 1 },
      },
      rules: [],
      defaultTurns: [
        { tools: [{ tool: 'bash', input: { command: 'yes x | head -c 8000' } }] },
        { tools: [{ tool: 'bash', input: { command: 'yes y | head -c 8000' } }] },
        { answer: 'latest kept: {{tool.exit_code}}' },
      ],
    });
    [compacting, lead] = await Promise.all([murmur.startDoor(capsule.dir), murmur.startDoor(LEAD)]);
    const task = await clientOf(compacting).sendText('go', { returnImmediately: false });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    compacted = task.id;
    const client = clientOf(lead);
    delegating = (await client.sendText('Which address does loopback traffic use?', { returnImmediately: true })).id;
    await expect.poll(async () => (await client.getTask(delegating)).status.state, { timeout: 60_000 }).toBe('TASK_STATE_COMPLETED');
  });
  test.afterAll(async () => {
    await Promise.all([compacting?.stop(), lead?.stop()]);
    capsule?.remove();
  });

  test('a compaction: a governor span before the turn it made room for, its measures in the detail panel', async ({ page, murmur }) => {
    const { grid, row, detail } = await selectSpan(page, murmur.consoleUrl, compacting, compacted, /governor Compaction before turn 3/);
    await expect(row).toHaveAttribute('data-span-kind', 'governor');
    // Under turn 2, whose tool output it elided: one level below the turn, before turn 3's row.
    const turn2 = grid.getByRole('row', { name: /turn Turn 2/ });
    expect(Number(await row.getAttribute('aria-level'))).toBe(Number(await turn2.getAttribute('aria-level')) + 1);
    await expect(row.locator('.bar')).toBeVisible();
    await expect(detail).toContainText('before turn');
    await expect(detail).toContainText(/tokens before\s*[\d,]+ \(estimated\)/);
    await expect(detail).toContainText(/budget\s*8,000 tokens/);
    await expect(detail).toContainText(/results elided\s*1/);
    await expect(detail).toContainText(/messages summarized\s*0/);
    await expect(detail.getByRole('link', { name: /^Entry \d+ in the record below$/ })).toBeVisible();
  });

  test('a delegation: a span from its start to its end, the child’s task and session in the detail panel', async ({ page, murmur }) => {
    const { row, detail } = await selectSpan(page, murmur.consoleUrl, lead, delegating, /delegation Delegation to researcher \(completed\)/);
    await expect(row).toHaveAttribute('data-span-kind', 'delegation');
    // It lasts as long as the child ran (the researcher's session started, ran its command and posted its outcome).
    await expect(row.locator('.dur')).not.toHaveText(/instant/);
    expect((await row.locator('.bar').boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(4);
    await expect(detail).toContainText(/capsule\s*researcher/);
    await expect(detail).toContainText(/status\s*completed/);
    await expect(detail).toContainText(/child task\s*tsk_[0-9a-f]{32}/);
    await expect(detail).toContainText(/child session\s*ses_[0-9a-f]{32}/);
    await expect(detail).toContainText(/delegation\s*dlg_/);
    // The record's answer carries the child's outcome.
    await expect(page.getByRole('region', { name: 'Outcome' })).toContainText("lead, with the researcher's findings");
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`axe: no serious or critical violation at 1280×800, ${colorScheme}, with each span selected`, async ({ page, murmur }) => {
      await page.emulateMedia({ colorScheme });
      for (const [door, taskId, span] of [
        [compacting, compacted, /governor Compaction before turn 3/],
        [lead, delegating, /delegation Delegation to researcher/],
      ] as const) {
        const { detail } = await selectSpan(page, murmur.consoleUrl, door, taskId, span);
        await expect(detail).toBeVisible();
        await expect(page.getByRole('table', { name: 'Task record' })).toBeVisible();
        expect(await axeViolations(page, FAILING_IMPACTS), `${taskId}, ${colorScheme}`).toEqual([]);
      }
    });
  }
});
