/**
 * A session's artifacts in the console (docs/artifacts.md; docs/console.md, "Artifacts"): a real door of
 * examples/artifacts pulls a native tool and a skill and uses both in its next turn, then forgets the tool; the door's
 * page lists its artifacts — declared, pulled, removed — with versions and digests, and the task's record shows the
 * skill's call and the tool's call like any other call.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientOf } from '../support/capsules.js';
import { openDoor } from '../support/console.js';
import { type Door, expect, REPO, test } from '../support/fixtures.js';

test.describe('artifacts', () => {
  let door: Door;
  test.beforeAll(async ({ murmur }) => {
    // The example as npm run build leaves it (its WASM tool built, its store and pin written), copied: the session pins into its own lock.
    execFileSync(process.execPath, [path.join(REPO, 'apps/door/scripts/build-artifacts.mjs')], { stdio: 'pipe' });
    const copy = path.join(mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-artifacts-')), 'artifacts');
    cpSync(path.join(REPO, 'examples/artifacts'), copy, { recursive: true });
    door = await murmur.startDoor(copy);
  });
  test.afterAll(async () => {
    await door?.stop();
  });

  test('the door’s page lists the session’s artifacts, and the record shows a skill’s call and a pulled tool’s call', async ({ page, murmur }) => {
    const client = clientOf(door);
    const counted = await client.sendText('count the lines of my notes', { returnImmediately: false });
    expect(counted.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await client.sendText('forget the line counter', { returnImmediately: false })).status.state).toBe('TASK_STATE_COMPLETED');

    await openDoor(page, murmur.consoleUrl, door.address);
    const table = page.getByRole('table', { name: 'Artifacts' });
    const rows = table.getByRole('row');
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(1)).toContainText('demo/greet');
    await expect(rows.nth(1)).toContainText('wasm tool');
    await expect(rows.nth(1)).toContainText('declared');
    await expect(rows.nth(1)).toContainText('held');
    await expect(rows.nth(2)).toContainText('demo/line-count');
    await expect(rows.nth(2)).toContainText('native tool');
    await expect(rows.nth(2)).toContainText(`pulled in ${counted.id}`);
    await expect(rows.nth(2)).toContainText('removed');
    await expect(rows.nth(3)).toContainText('demo/release-notes');
    await expect(rows.nth(3)).toContainText('skill');
    for (const i of [1, 2, 3]) await expect(rows.nth(i).getByRole('cell').nth(1)).toHaveText('1.0.0');
    await expect(rows.nth(1).getByRole('cell').nth(6)).toHaveText(/^sha256:[0-9a-f]{12}…$/);

    await rows.nth(2).getByRole('link', { name: counted.id }).click();
    const record = page.getByRole('table', { name: 'Task record' });
    await expect(record.getByRole('row').filter({ hasText: 'Skill call release-notes (demo/release-notes)' })).toHaveCount(1);
    await expect(record.getByRole('row').filter({ hasText: 'Tool call line-count (exit 0)' })).toHaveCount(1);
    await expect(record.getByRole('row').filter({ hasText: 'Tool call pull-artifact' })).toHaveCount(2);
  });
});
