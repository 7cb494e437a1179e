/**
 * Every door serves its record (issue 26, docs/console.md "Every door serves its record"): a door added with
 * `mur console --door URL --token-file F`, launched under another MURMUR_HOME than the console's (so its records
 * folder is not where mur console reads), shows a task's full record, its waterfall, the session search and both
 * exports in the console — all read from the door's record plane through the console's proxy, with the door's token.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type Capsule, clientOf, makeCapsule, tokenOf } from '../support/capsules.js';
import { type Door, expect, MUR, test } from '../support/fixtures.js';

/** A non-loopback IPv4 address of this machine when it has one (the door is then reached as another host would). */
function outsideAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

/** Starts `mur <args>` under `home` and resolves its first stdout line (JSON). */
function mur(args: string[], home: string): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  const child = spawn(process.execPath, [MUR, ...args], { env: { ...process.env, MURMUR_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, line: JSON.parse(line) as Record<string, unknown> }));
    child.once('exit', (code) => reject(new Error(`mur ${args.join(' ')} exited ${code}`)));
  });
}

test.describe('the record of a door whose records are on another host', () => {
  const children: ChildProcess[] = [];
  let home: string;
  let capsule: Capsule;
  let consoleUrl: string;
  let door: Door;
  let taskId: string;

  test.beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-remote-record-'));
    capsule = makeCapsule({
      name: 'far-away',
      network: { authentication: { scheme: 'bearer' } },
      rules: [
        {
          match: '^paint',
          turns: [
            { text: ['mixing ', 'colours'], usage: { input: 90, output: 5 }, tools: [{ tool: 'bash', input: { command: 'echo mixed viridian' } }] },
            { answer: 'painted viridian', usage: { input: 120, output: 4 } },
          ],
        },
      ],
    });
    const run = await mur(['run', capsule.dir, '--host', outsideAddress(), '--json'], path.join(home, 'elsewhere'));
    children.push(run.child);
    const url = String(run.line.url);
    door = {
      sessionId: String(run.line.sessionId),
      url,
      address: new URL(url).host,
      recordsDir: String(run.line.recordsDir),
      name: 'far-away',
      stop: async () => undefined,
    };
    const token = tokenOf(door, 'operator');
    const tokenFile = path.join(home, 'operator.token');
    writeFileSync(tokenFile, token);
    const task = await clientOf(door, token).sendText('paint the fence', { returnImmediately: false });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    taskId = task.id;
    // The console's MURMUR_HOME holds no record of the door: only the door can serve it.
    const consoleProc = await mur(['console', '--port', '0', '--json', '--door', url, '--token-file', tokenFile], path.join(home, 'here'));
    children.push(consoleProc.child);
    consoleUrl = String(consoleProc.line.url);
  });

  test.afterAll(() => {
    for (const child of children) child.kill('SIGTERM');
    capsule?.remove();
    rmSync(home, { recursive: true, force: true });
  });

  test('mur console’s own records do not hold the task: what the console shows comes from the door', async () => {
    expect((await fetch(`${consoleUrl}/api/records/tasks/${taskId}`)).status).toBe(404);
    const viaProxy = await fetch(`${consoleUrl}/api/door/${door.address}/resources/records/tasks/${taskId}`);
    expect(viaProxy.status).toBe(200);
    expect(((await viaProxy.json()) as { task: { input: string } }).task.input).toBe('paint the fence');
  });

  test('the task page shows the full record and its trace', async ({ page }) => {
    await page.goto(`${consoleUrl}/#/door/${door.address}/tasks/${taskId}`);
    const record = page.getByRole('table', { name: 'Task record' });
    await expect(record.getByRole('row').filter({ hasText: 'Tool call bash' })).toContainText('echo mixed viridian');
    await expect(record.getByRole('row').filter({ hasText: 'Turn 1' })).toContainText('90 in · 5 out tokens');
    await expect(record).toContainText('painted viridian');
    await expect(page.getByText('210 in · 9 out', { exact: true })).toBeVisible();
    // The trace draws them on the task's axis: a span for the tool call, one for each turn, each with its bar.
    const trace = page.getByTestId('trace-grid');
    await expect(trace.locator('[data-span-kind="tool"] .bar')).toHaveCount(1);
    await expect(trace.locator('[data-span-kind="turn"] .bar')).toHaveCount(2);
  });

  test('the task’s record exports as NDJSON from the door', async ({ page }) => {
    await page.goto(`${consoleUrl}/#/door/${door.address}/tasks/${taskId}`);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export record (NDJSON)' }).click();
    const lines = readFileSync(await (await download).path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ kind: 'task', taskId, input: 'paint the fence', answer: 'painted viridian' });
    expect(lines.map((l) => l.kind)).toContain('tool-call');
  });

  test('the session search finds the task, and the session exports from the door', async ({ page }) => {
    await page.goto(`${consoleUrl}/#/door/${door.address}`);
    await page.getByLabel('Search tasks').fill('viridian');
    await page.getByLabel('Search tasks').press('Enter');
    await expect(page.getByRole('navigation', { name: 'Task pages' })).toContainText('Found “viridian”');
    await expect(page.getByRole('table', { name: 'Tasks' }).getByRole('link', { name: taskId })).toBeVisible();

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export session record (NDJSON)' }).click();
    const lines = readFileSync(await (await download).path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ kind: 'session', sessionId: door.sessionId });
    expect(lines.filter((l) => l.kind === 'task').map((l) => l.taskId)).toEqual([taskId]);
  });
});
