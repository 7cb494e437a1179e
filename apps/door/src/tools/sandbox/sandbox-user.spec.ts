import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { GIVE_TREE_DEPTH, giveTree, SANDBOX_UID_BASE, sandboxUid } from './sandbox-user.js';

test("a session's uid: never 0, in its own range, the same for the same session", () => {
  const a = sandboxUid('ses_0199c4e2f1b7712a9d3e4f5061728394');
  assert.equal(a, sandboxUid('ses_0199c4e2f1b7712a9d3e4f5061728394'));
  assert.notEqual(a, sandboxUid('ses_0199c4e2f1b7712a9d3e4f5061728395'));
  assert.ok(a >= SANDBOX_UID_BASE && a < SANDBOX_UID_BASE + 2 ** 24 && a < 2 ** 31);
});

test('giveTree makes the tree the uid’s, and changes a link itself, never what it points to', (t) => {
  if (process.getuid?.() !== 0) return t.skip('only root can give files away');
  const root = mkdtempSync(path.join(os.tmpdir(), 'murmur-give-'));
  const outside = path.join(root, 'outside');
  writeFileSync(outside, 'x');
  const work = path.join(root, 'work');
  mkdirSync(path.join(work, 'a', 'b'), { recursive: true });
  writeFileSync(path.join(work, 'a', 'b', 'f'), 'y');
  symlinkSync(outside, path.join(work, 'link'));
  symlinkSync(root, path.join(work, 'dirlink'));
  linkSync(outside, path.join(work, 'hardlink'));
  giveTree(work, 1_000_000_007);
  for (const p of ['', 'a', 'a/b', 'a/b/f', 'link', 'dirlink']) assert.equal(lstatSync(path.join(work, p)).uid, 1_000_000_007, p);
  assert.equal(lstatSync(outside).uid, 0, 'the file a link points to is untouched, and a hard link to it too');
  assert.equal(lstatSync(root).uid, 0);
});

test('giveTree is not raced out of its tree: a folder swapped for a link to a host folder while it walks is never followed', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('only root can give files away');
  const root = mkdtempSync(path.join(os.tmpdir(), 'murmur-give-race-'));
  const host = path.join(root, 'host');
  mkdirSync(host);
  for (let i = 0; i < 20; i++) writeFileSync(path.join(host, `f${i}`), 'host');
  const work = path.join(root, 'work');
  mkdirSync(path.join(work, 'a'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(path.join(work, 'a', `f${i}`), 'own');
  // What a command of a session sharing the folder does meanwhile: swaps `a` for a link to the host folder and back.
  const swapper = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs'); const a = ${JSON.stringify(path.join(work, 'a'))};
       const end = Date.now() + 4000;
       while (Date.now() < end) { try { fs.renameSync(a, a + '.real'); fs.symlinkSync(${JSON.stringify(host)}, a); fs.unlinkSync(a); fs.renameSync(a + '.real', a); } catch {} }`,
    ],
    { stdio: 'ignore' },
  );
  const ended = new Promise((resolve) => swapper.once('exit', resolve));
  const deadline = Date.now() + 3000;
  let walks = 0;
  while (Date.now() < deadline) {
    giveTree(work, 1_000_000_009); // and never fails for a name that changed under it
    walks += 1;
  }
  await ended;
  assert.ok(walks > 100, `only ${walks} walks`);
  for (const name of readdirSync(host)) assert.equal(lstatSync(path.join(host, name)).uid, 0, `host/${name} was given away`);
  assert.equal(lstatSync(host).uid, 0);
});

test(`giveTree gives the folders down to ${GIVE_TREE_DEPTH} below the one given, no deeper`, (t) => {
  if (process.getuid?.() !== 0) return t.skip('only root can give files away');
  const work = mkdtempSync(path.join(os.tmpdir(), 'murmur-give-deep-'));
  const chain = Array.from({ length: GIVE_TREE_DEPTH + 2 }, () => 'd');
  mkdirSync(path.join(work, ...chain), { recursive: true });
  giveTree(work, 1_000_000_011);
  assert.equal(lstatSync(path.join(work, ...chain.slice(0, GIVE_TREE_DEPTH))).uid, 1_000_000_011, 'the deepest folder given');
  assert.equal(lstatSync(path.join(work, ...chain.slice(0, GIVE_TREE_DEPTH + 1))).uid, 0, 'a folder below it is not');
});
