import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { folderBeneath, LinkRefused, openBeneath, OutsideRoot, viaDescriptor } from './beneath.js';

function tree(): { base: string; root: string; outside: string } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'murmur-beneath-'));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'a', 'b', 'f.txt'), 'inside');
  writeFileSync(path.join(outside, 'secret.txt'), 'outside');
  return { base, root, outside };
}

const read = async (root: string, segments: string[]) => {
  const opened = await openBeneath(root, segments, 'file');
  if (opened === null) return null;
  try {
    return (await opened.handle.readFile()).toString();
  } finally {
    await opened.handle.close();
  }
};

test('a file under the root opens; links are followed while they stay inside, relative or absolute, through .. too', async () => {
  const { root } = tree();
  symlinkSync('a/b', path.join(root, 'rel'));
  symlinkSync(path.join(root, 'a'), path.join(root, 'abs'));
  symlinkSync('../b/f.txt', path.join(root, 'a', 'b', 'up'));
  symlinkSync('loop', path.join(root, 'loop'));
  assert.equal(await read(root, ['a', 'b', 'f.txt']), 'inside');
  assert.equal(await read(root, ['rel', 'f.txt']), 'inside');
  assert.equal(await read(root, ['abs', 'b', 'f.txt']), 'inside');
  assert.equal(await read(root, ['a', 'b', 'up']), 'inside');
  assert.equal(await read(root, ['loop']), null, 'a loop ends after 40 links');
  assert.equal(await read(root, ['a']), null, 'a folder is not a file');
  assert.equal((await openBeneath(root, [], 'folder'))?.stats.isDirectory(), true, 'no segments: the root itself');
});

test('a link out of the root, absolute or by .., is refused wherever it sits on the path; so is a FIFO', async () => {
  const { root, outside } = tree();
  symlinkSync(outside, path.join(root, 'out'));
  symlinkSync('../../outside', path.join(root, 'a', 'climb'));
  symlinkSync('/etc/passwd', path.join(root, 'passwd'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  assert.equal(await read(root, ['out', 'secret.txt']), null);
  assert.equal(await read(root, ['a', 'climb', 'secret.txt']), null);
  assert.equal(await read(root, ['passwd']), null);
  assert.equal(await read(root, ['fifo']), null, 'opened without waiting for a writer, and refused by its kind');
});

test('making folders: made one by one in the folder already opened; through a link out, nothing is made outside', async () => {
  const { root, outside } = tree();
  symlinkSync(outside, path.join(root, 'out'));
  const made = await folderBeneath(root, ['new', 'deep', 'er'], { make: { mode: 0o755, owner: null } });
  await made.handle.close();
  assert.ok(existsSync(path.join(root, 'new', 'deep', 'er')));
  await assert.rejects(folderBeneath(root, ['out', 'x', 'y'], { make: { mode: 0o755, owner: null } }), OutsideRoot);
  assert.deepEqual(readdirSync(outside), ['secret.txt'], 'no folder was made outside before the refusal');
  await assert.rejects(folderBeneath(root, ['a', 'b', 'f.txt', 'x'], { make: { mode: 0o755, owner: null } }), OutsideRoot, 'a file is no folder');
});

test('under a concurrent swap of a folder for a link out, a walk never leaves the root and never makes anything outside', async () => {
  const { base, root, outside } = tree();
  const swapped = path.join(root, 'swap');
  // A command can move a folder only within the workdir: the swapped folder is parked inside the root.
  const parked = path.join(root, 'parked');
  mkdirSync(swapped);
  // Another process swaps root/swap between a real folder and a link to `outside`, as fast as it can.
  const script = `
    const fs = require('node:fs');
    const end = Date.now() + 3000;
    while (Date.now() < end) {
      try { fs.renameSync(${JSON.stringify(swapped)}, ${JSON.stringify(parked)}); fs.symlinkSync(${JSON.stringify(outside)}, ${JSON.stringify(swapped)}); } catch {}
      try { fs.unlinkSync(${JSON.stringify(swapped)}); fs.renameSync(${JSON.stringify(parked)}, ${JSON.stringify(swapped)}); } catch {}
    }`;
  const { spawn } = await import('node:child_process');
  const swapper = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  let inside = 0;
  let refused = 0;
  try {
    const deadline = Date.now() + 2500;
    for (let i = 0; Date.now() < deadline; i++) {
      try {
        const folder = await folderBeneath(root, ['swap', `made-${i}`], { make: { mode: 0o755, owner: null } });
        // Whatever the folder is now, the descriptor is one under the root.
        const where = await import('node:fs/promises').then((fs) => fs.readlink(viaDescriptor(folder.handle)));
        assert.ok(where.startsWith(`${root}/`), where);
        await folder.handle.close();
        inside += 1;
      } catch (error) {
        assert.ok(error instanceof OutsideRoot, String(error));
        refused += 1;
      }
      const secret = await read(root, ['swap', '..', 'swap', 'secret.txt']);
      assert.equal(secret, null, 'the secret outside is never read');
    }
  } finally {
    swapper.kill();
    await new Promise((resolve) => swapper.once('exit', resolve));
  }
  assert.deepEqual(readdirSync(outside), ['secret.txt'], 'nothing was made outside');
  assert.ok(inside + refused > 50, `${inside} walks inside, ${refused} refused`);
  rmSync(base, { recursive: true, force: true });
});

test("links: 'refuse': a link anywhere on the way is LinkRefused, naming its path under the root, even one that stays inside", async () => {
  const { root } = tree();
  symlinkSync('b', path.join(root, 'a', 'inside'));
  symlinkSync('b/f.txt', path.join(root, 'a', 'file-link'));
  const refused = (at: string) => (error: unknown) => error instanceof LinkRefused && error.at === at && error.message === `${at} is a symbolic link`;
  await assert.rejects(folderBeneath(root, ['a', 'inside'], { links: 'refuse' }), refused('a/inside'));
  await assert.rejects(folderBeneath(root, ['a', 'inside', 'new'], { links: 'refuse', make: { mode: 0o755, owner: null } }), refused('a/inside'));
  assert.ok(!existsSync(path.join(root, 'a', 'b', 'new')), 'nothing is made past the link');
  assert.equal(await openBeneath(root, ['a', 'file-link'], 'file', { links: 'refuse' }), null);
  const followed = await openBeneath(root, ['a', 'file-link'], 'file');
  assert.notEqual(followed, null, 'followed inside the root without the option');
  await followed?.handle.close();
  const made = await folderBeneath(root, ['a', 'b', 'new'], { links: 'refuse', make: { mode: 0o755, owner: null } });
  await made.handle.close();
  assert.ok(existsSync(path.join(root, 'a', 'b', 'new')), 'a path without a link is walked and made as before');
});
