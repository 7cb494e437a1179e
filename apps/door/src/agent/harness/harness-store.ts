import { closeSync, constants, type Dirent, fchmodSync, fstatSync, lstatSync, mkdirSync, opendirSync, openSync, readSync, unlinkSync } from 'node:fs';
import { PRIVATE_DIR_MODE } from '../../common/private-files.js';

/**
 * What the door reads of a harness's own store — its home, which the run's sandbox writes (docs/harness.md, "The
 * harness's store"): the harness and every command it runs can put there a link to any host file, a FIFO, or a
 * million entries, and swap any of them while the door reads. So nothing here follows a link, each step is opened
 * relative to the folder opened before it (through its descriptor, never its path again), a FIFO or device is never
 * read, and a folder is read only up to STORE_FOLDER_ENTRIES entries.
 *
 * Synchronous, as its callers are (a resume's check, a turn's end): each call opens a handful of descriptors and reads
 * a bounded amount.
 */

/** Entries of one folder of a harness's store the door reads, at most: the rest are not looked at. */
export const STORE_FOLDER_ENTRIES = 10_000;

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** The path that reaches an open descriptor itself, whatever was renamed or swapped since it was opened. */
const via = (fd: number, name?: string) => (name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`);

/** A name of one component: not empty, no slash, not `.` or `..`. */
const isPlainName = (name: string) => name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');

/**
 * Runs `use` with the folder `segments` names under `root` (the door's own folder, which the sandbox cannot replace)
 * opened, every step without following a link; null when any step is missing, a link, or not a folder.
 */
export function inStoreFolder<T>(root: string, segments: readonly string[], use: (folder: number) => T): T | null {
  if (!segments.every(isPlainName)) return null;
  let fd: number;
  try {
    fd = openSync(root, O_RDONLY | O_DIRECTORY);
  } catch {
    return null;
  }
  try {
    for (const name of segments) {
      const next = openSync(via(fd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      closeSync(fd);
      fd = next;
    }
  } catch {
    closeSync(fd);
    return null;
  }
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** The first STORE_FOLDER_ENTRIES entries of an open folder, each with its kind as the folder says it (a link is a link). */
export function folderEntries(folder: number): Dirent[] {
  const entries: Dirent[] = [];
  const dir = opendirSync(via(folder));
  try {
    for (let entry = dir.readSync(); entry !== null && entries.length < STORE_FOLDER_ENTRIES; entry = dir.readSync()) entries.push(entry);
  } finally {
    dir.closeSync();
  }
  return entries;
}

/** Runs `use` with the folder `name` in `folder` opened (no link followed); null when it is missing, a link, or not a folder. */
export function inSubfolder<T>(folder: number, name: string, use: (subfolder: number) => T): T | null {
  return inStoreFolder(via(folder), [name], use);
}

/** Whether `name` in `folder` is a regular file (not a link, a FIFO, a device or a folder). */
export function isStoreFile(folder: number, name: string): boolean {
  return withStoreFile(folder, name, () => true) ?? false;
}

/**
 * Runs `use` with the regular file `name` in `folder` opened for reading and its size; null when it is missing, a link,
 * or anything but a regular file (a FIFO is opened without blocking and refused by its kind).
 */
export function withStoreFile<T>(folder: number, name: string, use: (fd: number, size: number) => T): T | null {
  if (!isPlainName(name)) return null;
  let fd: number;
  try {
    fd = openSync(via(folder, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() ? use(fd, stats.size) : null;
  } finally {
    closeSync(fd);
  }
}

/** `length` bytes of an open file from `position` (fewer at its end). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buffer, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buffer.subarray(0, got);
}

/** A folder of the store the door makes for the harness could not be made: something kept taking its name. */
class StoreFolderError extends Error {
  override readonly name = 'StoreFolderError';
}

/**
 * Makes `name` a private folder (0700) in `home` (the door's own folder) for the harness, whatever an earlier run's
 * sandbox left at the name: a link, a file, a FIFO there is removed first (itself, never what it points to), and the
 * folder is made and tightened through its own descriptor, so its mode never lands on a folder a link names.
 */
export function makeStoreFolder(home: string, name: string): void {
  if (!isPlainName(name)) throw new StoreFolderError(`not one folder name: ${name}`);
  const made = inStoreFolder(home, [], (folder) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      let kind: 'folder' | 'other' | 'none' = 'none';
      try {
        kind = lstatSync(via(folder, name)).isDirectory() ? 'folder' : 'other';
      } catch {
        kind = 'none';
      }
      if (kind === 'other') unlinkSync(via(folder, name));
      if (kind !== 'folder') {
        try {
          mkdirSync(via(folder, name), PRIVATE_DIR_MODE);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      const tightened = inSubfolder(folder, name, (sub) => {
        fchmodSync(sub, PRIVATE_DIR_MODE);
        return true;
      });
      if (tightened) return true;
    }
    return false;
  });
  if (made !== true) throw new StoreFolderError(`the harness's folder ${name} in ${home} could not be made: something else kept taking its name`);
}
