/**
 * A door's exported files and peer handles in the console (docs/planes.md, "In the console"): examples/planes, a
 * two-member formation (`mur run --roster`) whose `owner` exports files and shares them with `reader`; the console lists, opens a folder,
 * previews a text file and an image, downloads, and shows the handles the owner's session minted with their state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { MurmurClient } from '@murmur/client';
import { expect, MUR, REPO, test } from '../support/fixtures.js';

/** examples/planes: `owner` exports its files and shares them with `reader` (the planes bench runs it too). */
const EXAMPLE = path.join(REPO, 'examples/planes');

interface Announced {
  members: { member: string; url: string }[];
}

let dir: string;
let formation: ChildProcess | null = null;
let owner: { url: string; address: string };

test.beforeAll(async ({ murmur }) => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-files-'));
  // A copy: the example's files as they are committed (docs/, pic.png, report.txt; shared/handoff.txt), nothing written into the repository.
  cpSync(EXAMPLE, dir, { recursive: true });

  const child = spawn(process.execPath, [MUR, 'run', '--roster', path.join(dir, 'roster.yaml'), '--json'], {
    env: { ...process.env, MURMUR_HOME: murmur.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  formation = child;
  const announced = await new Promise<Announced>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as Partial<Announced>;
      if (parsed.members) resolve(parsed as Announced);
    });
    child.once('exit', (code) => reject(new Error(`mur run --roster exited ${code}`)));
  });
  const url = announced.members.find((m) => m.member === 'owner')!.url;
  owner = { url, address: new URL(url).host };
});

test.afterAll(async () => {
  if (formation && formation.exitCode === null) {
    const exited = new Promise((resolve) => formation!.once('exit', resolve));
    formation.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('browse, open a folder, preview text and an image, download', async ({ page, murmur }) => {
  await page.goto(`${murmur.consoleUrl}/#/door/${owner.address}`);
  await page.getByRole('link', { name: 'Files', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Files of owner' })).toBeVisible();
  const files = page.getByRole('table', { name: 'Files' });
  await expect(files.getByRole('row')).toHaveCount(4); // the header, docs/, pic.png, report.txt
  const report = files.getByRole('row').filter({ hasText: 'report.txt' });
  await expect(report.getByRole('cell').nth(1)).toHaveText('29 B');

  // A folder opens by its link; the breadcrumb leads back.
  await files.getByRole('link', { name: 'docs/' }).click();
  await expect(page).toHaveURL(/#\/door\/.+\/files\/docs$/);
  await expect(files.getByRole('button', { name: 'Preview guide.md' })).toBeVisible();
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
  await expect(crumbs.getByText('docs')).toHaveAttribute('aria-current', 'page');
  await crumbs.getByRole('link', { name: 'Files' }).click();
  await expect(files.getByRole('button', { name: 'Preview report.txt' })).toBeVisible();

  // Text and image previews.
  await files.getByRole('button', { name: 'Preview report.txt' }).click();
  const textPreview = page.getByRole('region', { name: 'Preview of report.txt' });
  await expect(textPreview.locator('pre')).toHaveText('the quarterly numbers\nare up\n');
  await expect(textPreview).toContainText('text/plain; charset=utf-8');
  await files.getByRole('button', { name: 'Preview pic.png' }).click();
  const image = page.getByRole('region', { name: 'Preview of pic.png' }).getByRole('img', { name: 'pic.png' });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);

  // Download: the file's bytes under its name.
  const downloading = page.waitForEvent('download');
  await files.getByRole('button', { name: 'Download report.txt' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('report.txt');
  expect(readFileSync((await download.path())!, 'utf8')).toBe('the quarterly numbers\nare up\n');
});

test('the peer handles the session minted, with their audience and state', async ({ page, murmur }) => {
  const client = new MurmurClient(owner.url);
  const share = async () => {
    const task = await client.sendText('share handoff.txt');
    const text = JSON.stringify(task);
    const minted = /\{\\"handle_id\\":\\"(hdl_[0-9a-f]{32})\\".*?\\"url\\":\\"(\S+?)\\"/.exec(text);
    expect(minted, text).not.toBeNull();
    return { id: minted![1], url: minted![2] };
  };
  const used = await share();
  const redeemed = await fetch(used.url, { headers: { 'x-murmur-audience': 'reader' } });
  expect(await redeemed.text()).toBe('for the reader\n');
  const live = await share();

  await page.goto(`${murmur.consoleUrl}/#/door/${owner.address}/files`);
  const handles = page.getByRole('table', { name: 'Peer handles' });
  const usedRow = handles.getByRole('row').filter({ hasText: used.id });
  await expect(usedRow).toContainText('reader');
  await expect(usedRow).toContainText('handoff.txt');
  await expect(usedRow).toContainText('used up');
  await expect(usedRow).toContainText('1 of 1');
  const liveRow = handles.getByRole('row').filter({ hasText: live.id });
  await expect(liveRow).toContainText('live');
  await expect(liveRow).toContainText('0 of 1');
  // The secret is never on the page.
  await expect(page.locator('body')).not.toContainText('phk_');
  await page.screenshot({ path: test.info().outputPath('files-and-handles.png'), fullPage: true });
});
