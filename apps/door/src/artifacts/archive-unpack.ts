import { chmod, mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header } from 'tar-stream';
import { ARCHIVE_BOUNDS, ArchiveRefusal, pathRefusal } from './archive-bounds.js';
import { ContentDigest } from './content-digest.js';

/** What unpacking an archive found: its digest, its files and their bytes. */
export interface UnpackedArchive {
  digest: string;
  files: number;
  bytes: number;
}

/** Tar's headers, padding and end blocks around the files' bytes, which a gzip stream may not exceed either. */
const TAR_OVERHEAD_BYTES = (ARCHIVE_BOUNDS.entries + 2) * 1024;

/** Passes at most `max` bytes on, and refuses the stream past them with `why`. */
function bounded(max: number, why: () => string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) done(new ArchiveRefusal(why()));
      else done(null, chunk);
    },
  });
}

/** An entry's path as the archive names it, a folder's trailing `/` dropped. */
const entryPath = (header: Header): string => header.name.replace(/\/$/, '');

/**
 * Unpacks `source` (a gzip'd tar, untrusted) into `folder`, which must not exist yet: regular files and folders only, in
 * path order, each folder listed before what it holds, within ARCHIVE_BOUNDS; every file made anew (O_EXCL), nothing
 * followed, so nothing lands outside `folder` (docs/artifacts.md). On any refusal `folder` is removed again.
 */
export async function unpackArchive(source: Readable, folder: string): Promise<UnpackedArchive> {
  await mkdir(folder, { mode: 0o755 });
  const digest = new ContentDigest();
  const tar = extract();
  const piping = pipeline(
    source,
    bounded(ARCHIVE_BOUNDS.archiveBytes, () => `the archive is larger than ${ARCHIVE_BOUNDS.archiveBytes} bytes`),
    createGunzip(),
    bounded(ARCHIVE_BOUNDS.unpackedBytes + TAR_OVERHEAD_BYTES, () => `the archive unpacks to more than ${ARCHIVE_BOUNDS.unpackedBytes} bytes`),
    tar,
  );
  // A refusal below ends the pipeline; its own rejection is then the same failure, awaited once at the end.
  piping.catch(() => undefined);
  const folders = new Set<string>(['']);
  let previous = '';
  let entries = 0;
  let bytes = 0;
  let files = 0;
  try {
    for await (const entry of tar) {
      const header = entry.header;
      const name = entryPath(header);
      entries += 1;
      if (entries > ARCHIVE_BOUNDS.entries) throw new ArchiveRefusal(`the archive holds more than ${ARCHIVE_BOUNDS.entries} entries`);
      const refused = pathRefusal(name);
      if (refused !== null) throw new ArchiveRefusal(refused);
      if (name <= previous)
        throw new ArchiveRefusal(
          `the archive's entries are not in path order, one each (${JSON.stringify(name)} after ${JSON.stringify(previous)}): pack it with mur pack`,
        );
      previous = name;
      const parent = name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '';
      if (!folders.has(parent))
        throw new ArchiveRefusal(`the archive holds ${JSON.stringify(name)} before its folder ${JSON.stringify(parent)}: pack it with mur pack`);
      const target = path.join(folder, name);
      if (header.type === 'directory') {
        entry.resume();
        await mkdir(target, { mode: 0o755 });
        await chmod(target, 0o755);
        folders.add(name);
        digest.folder(name);
        continue;
      }
      if (header.type !== 'file')
        throw new ArchiveRefusal(
          `the archive holds ${JSON.stringify(name)}, a ${header.type ?? 'entry of no kind'}: an artifact holds regular files and folders only`,
        );
      const size = header.size ?? 0;
      bytes += size;
      if (bytes > ARCHIVE_BOUNDS.unpackedBytes) throw new ArchiveRefusal(`the archive unpacks to more than ${ARCHIVE_BOUNDS.unpackedBytes} bytes`);
      const executable = ((header.mode ?? 0) & 0o111) !== 0;
      digest.file(name, executable, size);
      const file = await open(target, 'wx', 0o600);
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          digest.bytes(chunk);
          await file.write(chunk);
        }
        await file.chmod(executable ? 0o755 : 0o644);
      } finally {
        await file.close();
      }
      files += 1;
    }
    await piping;
  } catch (error) {
    tar.destroy();
    await rm(folder, { recursive: true, force: true });
    if (error instanceof ArchiveRefusal) throw error;
    throw new ArchiveRefusal(`the archive could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { digest: digest.done(), files, bytes };
}
