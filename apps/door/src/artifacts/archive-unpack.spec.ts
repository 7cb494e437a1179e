/**
 * An archive is untrusted input (docs/artifacts.md, "The archive and its bounds"): every path that would leave the
 * folder, every entry that is not a regular file or a folder, an archive out of mur pack's order, and one past a bound
 * is refused, and the folder is removed again; nothing is written outside it. A folder and its archive share a digest.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type Header, pack } from 'tar-stream';
import { ARCHIVE_BOUNDS, ArchiveRefusal } from './archive-bounds.js';
import { packFolder } from './archive-pack.js';
import { unpackArchive } from './archive-unpack.js';

type Entry = Partial<Header> & { name: string; body?: string | Buffer };

/** A gzip'd tar of exactly these entries, whatever they say. */
async function tarOf(entries: Entry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const { body, ...header } of entries) {
    const type = header.type ?? 'file';
    const bytes = body === undefined ? undefined : Buffer.from(body);
    if (bytes === undefined) tar.entry({ mode: 0o644, ...header, type });
    else tar.entry({ mode: 0o644, ...header, type, size: bytes.length }, bytes);
  }
  tar.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'murmur-unpack-'));

async function refused(archive: Buffer, why: RegExp): Promise<void> {
  const root = scratch();
  const folder = path.join(root, 'artifact');
  await assert.rejects(unpackArchive(Readable.from([archive]), folder), (error: unknown) => error instanceof ArchiveRefusal && why.test(error.message));
  assert.deepEqual(readdirSync(root), [], 'nothing is left, inside or beside the folder');
}

const MANIFEST = { name: 'murmur.yaml', body: 'name: acme/x\n' };

test('a path that climbs out, an absolute one, and parts that are empty, . or unusual characters are refused', async () => {
  await refused(await tarOf([MANIFEST, { name: '../escaped', body: 'x' }]), /not a relative path/);
  await refused(await tarOf([{ name: '/etc/cron.d/x', body: 'x' }]), /not a relative path/);
  await refused(await tarOf([{ name: 'a/./b', body: 'x' }]), /not a relative path/);
  await refused(await tarOf([{ name: 'a//b', body: 'x' }]), /not a relative path/);
  await refused(await tarOf([{ name: 'bad\\name', body: 'x' }]), /not a relative path/);
  await refused(await tarOf([{ name: 'esc\u001b[2J', body: 'x' }]), /not a relative path/);
});

test('links, devices and FIFOs are refused: an artifact holds regular files and folders only', async () => {
  await refused(
    await tarOf([{ name: 'link', type: 'symlink', linkname: '/etc/passwd' }]),
    /"link", a symlink: an artifact holds regular files and folders only/,
  );
  await refused(await tarOf([MANIFEST, { name: 'z-hard', type: 'link', linkname: 'murmur.yaml' }]), /"z-hard", a link: /);
  await refused(await tarOf([{ name: 'fifo', type: 'fifo' }]), /"fifo", a fifo: /);
  await refused(await tarOf([{ name: 'dev', type: 'character-device', devmajor: 1, devminor: 3 }]), /"dev", a character-device: /);
});

test('entries out of path order, twice, or before their folder are refused', async () => {
  await refused(
    await tarOf([
      { name: 'b', body: 'x' },
      { name: 'a', body: 'x' },
    ]),
    /not in path order/,
  );
  await refused(
    await tarOf([
      { name: 'a', body: 'x' },
      { name: 'a', body: 'y' },
    ]),
    /not in path order/,
  );
  await refused(await tarOf([{ name: 'dir/file', body: 'x' }]), /before its folder "dir"/);
});

test('past a bound: too many entries, too many bytes unpacked, not gzip', async () => {
  const many = Array.from({ length: ARCHIVE_BOUNDS.entries + 1 }, (_, i) => ({ name: `f${String(i).padStart(5, '0')}`, body: '' }));
  await refused(await tarOf(many), /more than 1024 entries/);
  // 65 MiB of zeros compress to little: the bound is on what is unpacked, checked before a byte of the file is written.
  await refused(await tarOf([{ name: 'big', body: Buffer.alloc(ARCHIVE_BOUNDS.unpackedBytes + 1024 * 1024) }]), /unpacks to more than 67108864 bytes/);
  await refused(Buffer.from('not gzip at all'), /could not be read/);
});

test('a folder and its archive share one digest, which is of the content: mode, size, path and bytes', async () => {
  const folder = scratch();
  writeFileSync(path.join(folder, 'murmur.yaml'), 'name: acme/x\n');
  mkdirSync(path.join(folder, 'bin'));
  writeFileSync(path.join(folder, 'bin', 'run'), '#!/bin/sh\n', { mode: 0o755 });
  const { archive, digest } = await packFolder(folder);
  const into = path.join(scratch(), 'artifact');
  const unpacked = await unpackArchive(Readable.from([archive]), into);
  assert.equal(unpacked.digest, digest);
  assert.deepEqual([unpacked.files, unpacked.bytes], [2, 'name: acme/x\n'.length + '#!/bin/sh\n'.length]);
  assert.ok(existsSync(path.join(into, 'bin', 'run')));
  // The same content in another archive (another compression, other owners and times) has the same digest.
  const other = await tarOf([
    { name: 'bin/', type: 'directory', mode: 0o700, uid: 1000, mtime: new Date() },
    { name: 'bin/run', body: '#!/bin/sh\n', mode: 0o700 },
    { name: 'murmur.yaml', body: 'name: acme/x\n', mode: 0o600 },
  ]);
  assert.equal((await unpackArchive(Readable.from([other]), path.join(scratch(), 'a'))).digest, digest);
  // One byte more, or one mode bit less, is another digest.
  const changed = await tarOf([
    { name: 'bin/', type: 'directory' },
    { name: 'bin/run', body: '#!/bin/sh\n', mode: 0o644 },
    { name: 'murmur.yaml', body: 'name: acme/x\n' },
  ]);
  assert.notEqual((await unpackArchive(Readable.from([changed]), path.join(scratch(), 'b'))).digest, digest);
});
