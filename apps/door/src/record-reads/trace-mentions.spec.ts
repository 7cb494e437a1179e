import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileMentions } from './trace-mentions.js';

const MIB = 1 << 20;
const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-mentions-'));
const fileOf = (name: string, bytes: Buffer) => {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
};
const ID = 'tsk_01a2501a6c7e7bd0a1b2c3d4e5f60718';

test('a file holding the bytes anywhere mentions them: at its start, its end, and cut by a read of 1 MiB', async () => {
  const filler = (n: number) => Buffer.alloc(n, 'x');
  assert.equal(await fileMentions(fileOf('start', Buffer.concat([Buffer.from(ID), filler(3 * MIB)])), ID), true);
  assert.equal(await fileMentions(fileOf('end', Buffer.concat([filler(3 * MIB), Buffer.from(ID)])), ID), true);
  for (const cut of [1, 10, ID.length - 1]) {
    const file = fileOf(`cut-${cut}`, Buffer.concat([filler(MIB - cut), Buffer.from(ID), filler(MIB)]));
    assert.equal(await fileMentions(file, ID), true, `cut ${cut} bytes into the id`);
  }
});

test('a file without the bytes, an id one character off, an empty file and a missing one mention nothing', async () => {
  const almost = `${ID.slice(0, -1)}9`;
  assert.equal(await fileMentions(fileOf('other', Buffer.concat([Buffer.alloc(2 * MIB, 'x'), Buffer.from(almost)])), ID), false);
  assert.equal(await fileMentions(fileOf('empty', Buffer.alloc(0)), ID), false);
  assert.equal(await fileMentions(path.join(dir, 'missing'), ID), false);
});
