/**
 * A door's exported files and peer handles in the console (docs/planes.md, "In the console"): a two-member formation
 * (`mur run --roster`) whose `owner` exports files and shares them with `reader`; the console lists, opens a folder,
 * previews a text file and an image, downloads, and shows the handles the owner's session minted with their state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { MurmurClient } from '@murmur/client';
import { expect, MUR, test } from '../support/fixtures.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const OWNER = [
  'name: owner',
  'version: 0.1.0',
  'lifecycle:',
  '  task_acceptance: queue',
  'inference:',
  '  driver: script',
  '  script: script.yaml',
  'capabilities:',
  '  network:',
  '    allow: [localhost]',
  'exports:',
  '  files:',
  '    root: files',
  '  peer_files:',
  '    root: shared',
  '',
].join('\n');
const OWNER_SCRIPT = JSON.stringify({
  rules: [
    { match: '^share (\\S+)$', turns: [{ tools: [{ tool: 'share-file', input: { path: '{{match.1}}', audience: 'reader' } }], answer: '{{tool.content}}' }] },
  ],
  default: { turns: [{ answer: 'owner: {{task.text}}' }] },
});
const READER = [
  'name: reader',
  'version: 0.1.0',
  'lifecycle:',
  '  task_acceptance: queue',
  'inference:',
  '  driver: script',
  '  script: script.yaml',
  'exports:',
  '  peer_tasks:',
  '    accept: true',
  '',
].join('\n');
const READER_SCRIPT = JSON.stringify({ rules: [], default: { turns: [{ answer: 'reader: {{task.text}}' }] } });
const ROSTER =
  'name: files\nentry: owner\nmembers:\n  owner: { capsule: ./owner }\n  reader: { capsule: ./reader }\nrules:\n  - from: owner\n    to: [reader]\n';

interface Announced {
  members: { member: string; url: string }[];
}

let dir: string;
let formation: ChildProcess | null = null;
let owner: { url: string; address: string };

test.beforeAll(async ({ murmur }) => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-files-'));
  for (const [name, manifest, script] of [
    ['owner', OWNER, OWNER_SCRIPT],
    ['reader', READER, READER_SCRIPT],
  ]) {
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, 'murmur.yaml'), manifest);
    writeFileSync(path.join(dir, name, 'script.yaml'), script);
  }
  writeFileSync(path.join(dir, 'roster.yaml'), ROSTER);
  const files = path.join(dir, 'owner', 'files');
  mkdirSync(path.join(files, 'docs'), { recursive: true });
  writeFileSync(path.join(files, 'report.txt'), 'the quarterly numbers\nare up\n');
  writeFileSync(path.join(files, 'pic.png'), Buffer.from(PNG_1PX, 'base64'));
  writeFileSync(path.join(files, 'docs', 'guide.md'), '# Guide\n');
  mkdirSync(path.join(dir, 'owner', 'shared'));
  writeFileSync(path.join(dir, 'owner', 'shared', 'handoff.txt'), 'for the reader\n');

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
