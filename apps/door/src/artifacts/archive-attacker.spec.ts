/**
 * The artifact format against a hostile publisher (docs/artifacts.md, "What an attacker can and cannot do"): the real
 * unpack on real files — links, a file through a link, devices, paths out, modes and owners, duplicates, bounds, a
 * decompression bomb read as it streams — and what of an artifact's own words reaches the model (a regular expression
 * in its input schema, a component's names in a refusal).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { createGzip } from 'node:zlib';
import { stringify } from 'yaml';
import { gzTarOf } from '../../test/support/hostile-tar.js';
import { ARCHIVE_BOUNDS, ArchiveRefusal } from './archive-bounds.js';
import { unpackArchive } from './archive-unpack.js';
import { parseArtifactManifest } from './artifact-manifest.js';
import { doesNotFit, witFit } from './wit-level.js';

const MIB = 1024 * 1024;
const tempDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `murmur-${prefix}-`));

/** One ustar header block, written by hand: what a hostile archive says, not what a packer would let it say. */
function ustarHeader(name: string, type: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  const field = (at: number, length: number, text: string) => block.write(text, at, length, 'ascii');
  field(0, 100, name);
  field(100, 8, '0000644\0');
  field(108, 8, '0000000\0');
  field(116, 8, '0000000\0');
  field(124, 12, `${size.toString(8).padStart(11, '0')}\0`);
  field(136, 12, '00000000000\0');
  field(156, 1, type);
  field(257, 8, 'ustar\u000000');
  block.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** A folder to unpack into, and beside it one the attacker aims at. */
function unpackPlace(): { folder: string; outside: string; root: string } {
  const root = tempDir('unpack');
  const outside = path.join(root, 'outside');
  mkdirSync(outside);
  return { folder: path.join(root, 'artifact'), outside, root };
}

async function unpackRefused(archive: Buffer | Readable, why: RegExp): Promise<void> {
  const { folder, outside, root } = unpackPlace();
  const source = archive instanceof Readable ? archive : Readable.from([archive]);
  await assert.rejects(unpackArchive(source, folder), (error: unknown) => error instanceof ArchiveRefusal && why.test(error.message));
  assert.deepEqual(readdirSync(root), ['outside'], 'the folder is gone again');
  assert.deepEqual(readdirSync(outside), [], 'nothing was written outside it');
}

describe('a hostile archive, on the real unpack', () => {
  test('a symbolic link, then a file written through it, is refused at the link: nothing lands where it points', async () => {
    const { outside } = unpackPlace();
    await unpackRefused(
      await gzTarOf([
        { name: 'd', type: 'symlink', linkname: outside },
        { name: 'd/planted', body: 'pwned' },
      ]),
      /"d", a symlink: an artifact holds regular files and folders only/,
    );
    assert.deepEqual(readdirSync(outside), []);
    await unpackRefused(await gzTarOf([{ name: 'up', type: 'symlink', linkname: '../outside' }]), /a symlink/);
  });

  test('a hard link (to /etc/passwd), a character device, a block device and a FIFO are refused; none is made', async () => {
    await unpackRefused(await gzTarOf([{ name: 'passwd', type: 'link', linkname: '/etc/passwd' }]), /"passwd", a link:/);
    await unpackRefused(await gzTarOf([{ name: 'mem', type: 'character-device', devmajor: 1, devminor: 1 }]), /"mem", a character-device:/);
    await unpackRefused(await gzTarOf([{ name: 'sda', type: 'block-device', devmajor: 8, devminor: 0 }]), /"sda", a block-device:/);
    await unpackRefused(await gzTarOf([{ name: 'pipe', type: 'fifo' }]), /"pipe", a fifo:/);
  });

  test('paths out of the folder: ../, absolute, a folder climbing back out, a name with a NUL or a newline', async () => {
    await unpackRefused(await gzTarOf([{ name: '../outside/planted', body: 'x' }]), /not a relative path/);
    await unpackRefused(await gzTarOf([{ name: '/tmp/planted', body: 'x' }]), /not a relative path/);
    await unpackRefused(
      await gzTarOf([
        { name: 'a/', type: 'directory' },
        { name: 'a/../../outside/planted', body: 'x' },
      ]),
      /not a relative path/,
    );
    await unpackRefused(await gzTarOf([{ name: 'line\nbreak', body: 'x' }]), /not a relative path/);
  });

  test('setuid, setgid and sticky bits and the owner ids a header names are not kept: 0755 or 0644, the door’s own owner', async () => {
    const { folder } = unpackPlace();
    const header = { uid: 4242, gid: 4242, uname: 'mallory', gname: 'mallory' };
    await unpackArchive(
      Readable.from([
        await gzTarOf([
          { name: 'bin', type: 'directory', mode: 0o7777, ...header },
          { name: 'bin/suid', body: '#!/bin/sh\n', mode: 0o6755, ...header },
          { name: 'plain', body: 'x', mode: 0o1666, ...header },
        ]),
      ]),
      folder,
    );
    const mode = (file: string) => statSync(path.join(folder, file)).mode & 0o7777;
    assert.equal(mode('bin'), 0o755);
    assert.equal(mode('bin/suid'), 0o755);
    assert.equal(mode('plain'), 0o644);
    for (const file of ['bin', 'bin/suid', 'plain']) assert.equal(statSync(path.join(folder, file)).uid, process.getuid?.(), file);
  });

  test('one name twice, a folder and a file of one name, and entries out of order are refused', async () => {
    await unpackRefused(
      await gzTarOf([
        { name: 'a', body: 'first' },
        { name: 'a', body: 'second' },
      ]),
      /not in path order, one each/,
    );
    await unpackRefused(
      await gzTarOf([
        { name: 'a', type: 'directory' },
        { name: 'a', body: 'x' },
      ]),
      /not in path order, one each/,
    );
    await unpackRefused(
      await gzTarOf([
        { name: 'a', body: 'x' },
        { name: 'a/b', body: 'x' },
      ]),
      /before its folder/,
    );
  });

  test('too many entries, a path too deep or too long are refused', async () => {
    const many = Array.from({ length: ARCHIVE_BOUNDS.entries + 1 }, (_, i) => ({ name: `f${String(i).padStart(5, '0')}`, body: '' }));
    await unpackRefused(await gzTarOf(many), /more than 1024 entries/);
    const deep = Array.from({ length: ARCHIVE_BOUNDS.depth + 1 }, (_, i) => 'd'.repeat(1) + String(i));
    const folders = deep.map((_, i) => ({ name: `${deep.slice(0, i + 1).join('/')}/`, type: 'directory' as const }));
    await unpackRefused(await gzTarOf([...folders, { name: `${deep.join('/')}/f`, body: 'x' }]), /more than 16 folders deep/);
    await unpackRefused(await gzTarOf([{ name: 'n'.repeat(ARCHIVE_BOUNDS.pathBytes + 1), body: 'x' }]), /longer than 255 bytes/);
  });

  test('a decompression bomb is refused while it streams: a file that says 1 GiB, and a 1 GiB pax header, read no further than the bound', async () => {
    // The source is made as it is read, and counts what the unpack asked of it.
    const bomb = (header: Buffer) => {
      let produced = 0;
      const zeros = Buffer.alloc(MIB);
      const gzip = createGzip({ level: 1 });
      const tar = Readable.from(
        (function* () {
          yield header;
          for (let i = 0; i < 1024; i++) {
            produced += zeros.length;
            yield zeros;
          }
        })(),
      );
      return { stream: tar.pipe(gzip), produced: () => produced };
    };
    const file = bomb(ustarHeader('huge', '0', 1024 * MIB));
    await unpackRefused(file.stream, /unpacks to more than 67108864 bytes/);
    assert.ok(file.produced() < 16 * MIB, `a file that says 1 GiB is refused at its header (${file.produced()} bytes made)`);
    // tar-stream bounds the pax header it buffers itself, below the unpack's own bound.
    const pax = bomb(ustarHeader('PaxHeader', 'x', 1024 * MIB));
    await unpackRefused(pax.stream, /could not be read: Header exceeds max size|unpacks to more than 67108864 bytes/);
    assert.ok(pax.produced() < 16 * MIB, `a 1 GiB pax header is refused before it is read (${pax.produced()} bytes made)`);
    // A directory entry that says it holds bytes: they are read, and counted by the streaming bound.
    const folder = bomb(ustarHeader('d/', '5', 1024 * MIB));
    await unpackRefused(folder.stream, /unpacks to more than 67108864 bytes/);
    // Cut at the bound, far short of the 1 GiB it says: what the source made past the bound is the read-ahead of the
    // gzip and stream buffers between it and the unpack, which Node 22 and 24 make larger (~58 MiB) than Node 20 (<16).
    assert.ok(folder.produced() < ARCHIVE_BOUNDS.unpackedBytes + 128 * MIB, `a folder's bytes are cut at the bound (${folder.produced()} bytes made)`);
  });
});

const manifestText = (name: string, extra: Record<string, unknown> = {}) =>
  stringify({ name, version: '1.0.0', runtime: 'tool', implementation: 'native', description: `the ${name} tool`, entry: 'run', ...extra });

describe("an artifact's own words, on their way to the model", () => {
  test('a regular expression is found wherever a schema can hold one; a property named pattern, or data, is no expression', () => {
    const schema = (input_schema: Record<string, unknown>) => () => parseArtifactManifest(manifestText('acme/x', { input_schema }), 'acme/x');
    const refusal = (at: string) => (error: unknown) =>
      error instanceof Error && error.message.includes(`${at}: found`) && error.message.includes('no pattern or patternProperties');
    assert.throws(schema({ type: 'object', patternProperties: { '^a': { type: 'string' } } }), refusal('input_schema.patternProperties'));
    assert.throws(
      schema({ type: 'object', properties: { xs: { type: 'array', items: { type: 'string', pattern: 'a*' } } } }),
      refusal('input_schema.properties.xs.items.pattern'),
    );
    assert.throws(schema({ type: 'object', allOf: [{ properties: { t: { pattern: 'a' } } }] }), refusal('input_schema.allOf[0].properties.t.pattern'));
    assert.throws(schema({ type: 'object', $defs: { s: { pattern: 'a' } } }), refusal('input_schema["$defs"].s.pattern'));
    const fine = parseArtifactManifest(
      manifestText('acme/x', {
        input_schema: { type: 'object', properties: { pattern: { type: 'string', enum: ['a'], default: 'a', examples: [{ pattern: 'x' }] } } },
      }),
      'acme/x',
    );
    assert.equal(fine.name, 'acme/x');
  });

  test('a component’s own names reach the model bounded: a 100,000-character import is cut in the refusal', () => {
    const wit = `package acme:x@1.0.0;\n\nworld tool {\n  import ${'a'.repeat(100_000)}:b/c@0.2.0;\n  export murmur:tool/run@0.1.0;\n}\n`;
    const fit = witFit(wit);
    assert.equal(fit.fits, false);
    const text = doesNotFit('acme/x', '1.0.0', fit as Exclude<typeof fit, { fits: true }>, null);
    assert.ok(text.length < 700, `${text.length} characters`);
    assert.match(text, /^does-not-fit: E-WIT-LEVEL-001: acme\/x 1\.0\.0 is built for WIT level 0\.1 \(it imports a{10,}…\)/);
  });
});
