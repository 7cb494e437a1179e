/**
 * The formation as a graph (issue 27; docs/console.md, "The formation as a graph"), in real Chromium against real
 * formations under `mur run --roster`: examples/formation's three members and planner's calls (its launch task's
 * and one more: two to each callee; counts, endings),
 * an edge linking to its call's entry in the caller's waterfall; and a formation whose worker, serving planner's
 * call, calls critic and delegates to a sub-capsule — both drawn a row below worker and said to be made within
 * planner → worker.
 */
import path from 'node:path';
import { MurmurClient } from '@murmur/client';
import type { Locator, Page } from '@playwright/test';
import { axeViolations } from '../support/axe.js';
import { type Formation, REPO, expect, test } from '../support/fixtures.js';
import { type FormationFolder, makeFormation } from '../support/formation.js';

const EXAMPLE_ROSTER = path.join(REPO, 'examples/formation/roster.yaml');

const graphOf = (page: Page) => page.getByRole('group', { name: /^Formation graph/ });
const edgeRow = (page: Page, edge: string) =>
  page
    .getByRole('table', { name: 'Graph edges' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${edge}`) }) });
const topOf = async (node: Locator) => (await node.locator('rect').boundingBox())?.y ?? Number.NaN;

test.describe('the graph of examples/formation', () => {
  let formation: Formation;
  let taskId: string;

  test.beforeAll(async ({ murmur }) => {
    formation = await murmur.startFormation(EXAMPLE_ROSTER);
    const task = await new MurmurClient(formation.member('planner').url).sendText('write a haiku about loopback', { returnImmediately: false });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    taskId = task.id;
  });
  test.afterAll(async () => {
    await formation?.stop();
  });

  test('shows the members as nodes and planner’s calls as edges, each with its count, ending and time, in text', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/formation/${formation.key}`);
    const graph = graphOf(page);
    await expect(graph).toHaveAttribute('aria-label', /3 nodes, 2 edges/);
    for (const name of ['planner', 'worker', 'critic']) await expect(graph.locator(`[data-node="${name}"]`)).toContainText(name);
    await expect(graph.locator('[data-node="planner"]')).toContainText('entry · idle');
    for (const callee of ['worker', 'critic']) {
      // Two calls to each: the launch's task (task.md) and the one sent above.
      const edge = graph.getByRole('link', { name: /^2 calls · 2 completed · \d/ }).and(graph.locator(`[data-edge="planner → ${callee}"]`));
      await expect(edge).toBeVisible();
      // The callee sits a row below its caller.
      expect(await topOf(graph.locator(`[data-node="${callee}"]`))).toBeGreaterThan(await topOf(graph.locator('[data-node="planner"]')));
      const row = edgeRow(page, `planner → ${callee}`);
      await expect(row).toContainText('2 completed');
      await expect(row.getByRole('cell').first()).toHaveText('—');
      await expect(row.getByRole('link', { name: /^mcl_\w+ · completed · \d/ })).toHaveCount(2);
    }
    // Two calls' links listed one above the other are each a target of 24 px (WCAG 2.2, 2.5.8): axe's target-size.
    expect(await axeViolations(page), 'formation view with two calls an edge').toEqual([]);
  });

  test('an edge is a link to its call’s entry in the caller’s waterfall, reached by Tab', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/formation/${formation.key}`);
    const edge = graphOf(page).locator('[data-edge="planner → worker"]');
    await expect(edge).toHaveAttribute('href', new RegExp(`^#/door/${formation.member('planner').address}/tasks/${taskId}\\?toolCall=`));
    // Keyboard: Tab reaches the edge link.
    await graphOf(page).getByRole('link').first().focus();
    let focused = '';
    for (let i = 0; i < 3 && focused !== 'planner → worker'; i++) {
      focused = (await page.evaluate(() => document.activeElement?.getAttribute('data-edge'))) ?? '';
      if (focused !== 'planner → worker') await page.keyboard.press('Tab');
    }
    expect(focused).toBe('planner → worker');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/tasks/${taskId}\\?toolCall=`));
    const linked = page.getByRole('table', { name: 'Task record' }).locator('tr[aria-current="true"]');
    await expect(linked).toHaveCount(1);
    await expect(linked).toContainText('Tool call call-member');
    await expect(linked).toContainText('→ worker');
    await expect(linked).toBeInViewport();
  });
});

test.describe('a nested call and a delegation in the graph', () => {
  let folder: FormationFolder;
  let formation: Formation;

  test.beforeAll(async ({ murmur }) => {
    folder = makeFormation({
      name: 'nested',
      entry: 'planner',
      members: {
        planner: {
          acceptance: 'queue',
          turns: [
            { tools: [{ tool: 'call-member', input: { member: 'worker', task: 'draft: {{task.text}}' } }], answer: 'waiting' },
            { answer: 'planner: {{continuation}}' },
          ],
        },
        worker: {
          callee: true,
          spawn: { helper: [{ answer: 'helper: looked it up' }] },
          turns: [
            {
              tools: [
                { tool: 'call-member', input: { member: 'critic', task: 'judge: {{task.text}}' } },
                { tool: 'delegate-task', input: { capsule: 'helper', task: 'look up: {{task.text}}' } },
              ],
              answer: 'waiting',
            },
            { answer: 'worker: {{continuation}}' },
          ],
        },
        critic: { callee: true, turns: [{ answer: 'critic: fine' }] },
      },
      rules: [
        { from: 'planner', to: ['worker'] },
        { from: 'worker', to: ['critic'] },
      ],
    });
    formation = await murmur.startFormation(folder.roster);
    const task = await new MurmurClient(formation.member('planner').url).sendText('a kite', { returnImmediately: false });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  });
  test.afterAll(async () => {
    await formation?.stop();
    folder?.remove();
  });

  test('worker’s call to critic and its delegation to helper show a row under worker, made within planner → worker', async ({ page, murmur }) => {
    await page.goto(`${murmur.consoleUrl}/#/formation/${formation.key}`);
    const graph = graphOf(page);
    await expect(graph).toHaveAttribute('aria-label', /4 nodes, 3 edges/);
    const node = (id: string) => graph.locator(`[data-node="${id}"]`);
    await expect(node('worker ▸ helper')).toContainText('helper');
    await expect(node('worker ▸ helper')).toContainText('delegated by worker');
    const [planner, worker, critic, helper] = await Promise.all(['planner', 'worker', 'critic', 'worker ▸ helper'].map((id) => topOf(node(id))));
    expect(worker).toBeGreaterThan(planner);
    expect(critic).toBeGreaterThan(worker);
    expect(helper).toBeGreaterThan(worker);
    await expect(graph.locator('[data-edge="worker → critic"]')).toContainText('1 call · 1 completed');
    await expect(graph.locator('[data-edge="worker → worker ▸ helper"]')).toContainText('1 delegation · 1 completed');

    await expect(edgeRow(page, 'worker → critic')).toContainText('within planner → worker');
    const delegated = edgeRow(page, 'worker → worker ▸ helper');
    await expect(delegated).toContainText('delegation');
    await expect(delegated).toContainText('within planner → worker');
    await expect(edgeRow(page, 'planner → worker').getByRole('cell').first()).toHaveText('—');

    // The nested call's edge leads into worker's own waterfall, at the call-member entry that made it.
    await graph.locator('[data-edge="worker → critic"] .edge-label').click();
    await expect(page).toHaveURL(new RegExp(`#/door/${formation.member('worker').address}/tasks/tsk_[^?]+\\?toolCall=`));
    const linked = page.getByRole('table', { name: 'Task record' }).locator('tr[aria-current="true"]');
    await expect(linked).toContainText('Tool call call-member');
    await expect(linked).toContainText('→ critic');

    // The delegation's, at the delegate-task entry.
    await page.goBack();
    await graphOf(page).locator('[data-edge="worker → worker ▸ helper"] .edge-label').click();
    await expect(page.getByRole('table', { name: 'Task record' }).locator('tr[aria-current="true"]')).toContainText('Tool call delegate-task');
  });
});
