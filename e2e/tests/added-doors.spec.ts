/**
 * `mur console --door URL --token-file F` (docs/cli.md): a door not registered on this host — one listening on a
 * non-loopback address of this machine, under another MURMUR_HOME — is listed on the capsules page and opens live,
 * its token sent by the console's proxy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { tokenOf } from '../support/capsules.js';
import { type Door, expect, MUR, REPO, test } from '../support/fixtures.js';

function outsideAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return null;
}

/** Starts `mur <args>` under `home` and resolves its first stdout line (JSON). */
function mur(args: string[], home: string): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
  const child = spawn(process.execPath, [MUR, ...args], { env: { ...process.env, MURMUR_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, line: JSON.parse(line) as Record<string, unknown> }));
    child.once('exit', (code) => reject(new Error(`mur ${args.join(' ')} exited ${code}`)));
  });
}

const outside = outsideAddress();

test.describe('added doors', () => {
  test.skip(outside === null, 'no non-loopback IPv4 address on this machine');
  const children: ChildProcess[] = [];
  let home: string;
  let consoleUrl: string;
  let door: Door;

  test.beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-added-'));
    const run = await mur(['run', path.join(REPO, 'examples/secure'), '--host', outside!, '--json'], path.join(home, 'elsewhere'));
    children.push(run.child);
    const url = String(run.line.url);
    door = {
      sessionId: String(run.line.sessionId),
      url,
      address: new URL(url).host,
      recordsDir: String(run.line.recordsDir),
      name: 'secure',
      stop: async () => undefined,
    };
    const tokenFile = path.join(home, 'operator.token');
    writeFileSync(tokenFile, tokenOf(door, 'operator'));
    // This console's host registry (its MURMUR_HOME) does not know the door: it is added explicitly.
    const consoleProc = await mur(['console', '--port', '0', '--json', '--door', url, '--token-file', tokenFile], path.join(home, 'here'));
    children.push(consoleProc.child);
    consoleUrl = String(consoleProc.line.url);
  });

  test.afterAll(() => {
    for (const child of children) child.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  });

  test('the capsules page lists the added door, and its page is live with its tasks listed', async ({ page }) => {
    await page.goto(`${consoleUrl}/#/`);
    const added = page.getByRole('region', { name: 'Added doors', exact: true });
    await expect(added.getByRole('link', { name: door.url })).toBeVisible();
    await expect(added).toContainText('with a token file');
    // Not a bare URL: its name and version from its card, and its state in words (its card asks for a token, and the
    // console's token file gives one).
    const item = added.getByRole('listitem').filter({ has: page.getByRole('link', { name: door.url }) });
    await expect(item).toContainText(/^\s*running\s+secure\s+0\.1\.0\s+·\s+http/);
    await expect(item).toContainText(`${door.url} with a token file`);
    await added.getByRole('link', { name: door.url }).click();
    await expect(page.getByRole('heading', { name: 'Live timeline' })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Session stream' })).toHaveText('live');
    await expect(page.getByRole('heading', { name: 'This door needs a token' })).toHaveCount(0);
    await expect(page.getByRole('navigation', { name: 'Task pages' })).toContainText('in total');
  });

  test("its files page shows its peer handles, read from the door's record plane (its records are on another host)", async ({ page }) => {
    await page.goto(`${consoleUrl}/#/door/${door.address}/files`);
    const handles = page.getByRole('region', { name: 'Peer handles' });
    await expect(handles).toContainText('This session’s records show no peer handles minted.');
    await expect(handles).not.toContainText('Peer handles are not available for this door');
  });
});
