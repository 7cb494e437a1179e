/**
 * murmur.lock is a regular file of the capsule folder (docs/artifacts.md, "murmur.lock"): one that is a symbolic link,
 * or not a regular file, is refused by name, read or written; the write goes to a temporary file made O_EXCL|O_NOFOLLOW
 * in the capsule folder, renamed over the lock, never through a link. Real files and links.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { LockError, readLock, updateLock } from './murmur-lock.js';

const PIN = { version: '1.0.0', digest: `sha256:${'a'.repeat(64)}`, runtime: 'skill', origin: 'operator', fetched_from: 'project store' } as const;

function folders(): { capsuleDir: string; elsewhere: string } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'murmur-lock-'));
  const capsuleDir = path.join(base, 'capsule');
  const elsewhere = path.join(base, 'elsewhere');
  mkdirSync(capsuleDir);
  mkdirSync(elsewhere);
  return { capsuleDir, elsewhere };
}

const pinOne = (capsuleDir: string) =>
  updateLock(capsuleDir, (lock) => ({ lock: { ...lock, artifacts: { ...lock.artifacts, 'acme/x': PIN } }, result: 'pinned' }));

describe('murmur.lock through a symbolic link', () => {
  test('a lock that is a link is refused, read or written, naming its path; what it points to is untouched', async () => {
    const { capsuleDir, elsewhere } = folders();
    const target = path.join(elsewhere, 'theirs.lock');
    writeFileSync(target, 'lock_version: 1\n');
    const file = path.join(capsuleDir, 'murmur.lock');
    symlinkSync(target, file);
    const said = `${file}: is a symbolic link: murmur.lock is read and written only as a regular file of the capsule folder, never through a link`;
    await assert.rejects(readLock(capsuleDir), (error: unknown) => error instanceof LockError && error.message === said);
    await assert.rejects(pinOne(capsuleDir), { message: said });
    assert.equal(readFileSync(target, 'utf8'), 'lock_version: 1\n');
    assert.deepEqual(readdirSync(capsuleDir).sort(), ['murmur.lock'], 'no temporary file and no hold is left');
  });

  test('a lock that is not a regular file (a folder) is refused by name', async () => {
    const { capsuleDir } = folders();
    mkdirSync(path.join(capsuleDir, 'murmur.lock'));
    await assert.rejects(readLock(capsuleDir), {
      message: `${path.join(capsuleDir, 'murmur.lock')}: is not a regular file: murmur.lock is read and written only as a regular file of the capsule folder`,
    });
  });

  test('a lock written as before: none, then one pin, renamed into place from a temporary file that is gone', async () => {
    const { capsuleDir } = folders();
    assert.deepEqual(await readLock(capsuleDir), { lock_version: 1, scopes: {}, artifacts: {} });
    assert.equal(await pinOne(capsuleDir), 'pinned');
    assert.deepEqual((await readLock(capsuleDir)).artifacts['acme/x'], PIN);
    assert.deepEqual(readdirSync(capsuleDir), ['murmur.lock']);
  });
});
