import assert from 'node:assert/strict';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { giveTree, SANDBOX_UID_BASE, sandboxUid } from './sandbox-user.js';

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
