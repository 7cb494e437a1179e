import { createHash } from 'node:crypto';
import { closeSync, constants, fchownSync, fstatSync, lchownSync, lstatSync, opendirSync, openSync, type Stats } from 'node:fs';

/** The first uid of the range the sessions' own users are taken from (docs/sandbox.md, "The sandbox's user"). */
export const SANDBOX_UID_BASE = 1_000_000_000;

/**
 * The host uid (and gid) a session's commands run as when the door is root: 1000000000 plus the first 24 bits of the
 * SHA-256 of the session id, so a resumed session gets its own again and two sessions share one only by chance.
 */
export function sandboxUid(sessionId: string): number {
  return SANDBOX_UID_BASE + createHash('sha256').update(sessionId).digest().readUIntBE(0, 3);
}

/** Folders down to this many below the one given are given (and listed); a deeper folder is left as it is. */
export const GIVE_TREE_DEPTH = 256;

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/** The path that reaches an open folder itself (or a name in it), whatever was renamed or swapped since it was opened. */
const via = (fd: number, name?: string) => (name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`);

/**
 * Makes `dir` and everything under it `uid`'s, never following a link, never leaving its filesystem, and never a file
 * with more than one name. A folder may be shared with another session's commands (a capsule's harness home), which
 * can swap anything in it while this walks: so each folder is opened from the one before it, through its open
 * descriptor, with O_NOFOLLOW, and changed and listed through that descriptor; a name swapped for a link meanwhile is
 * met as a link (its owner changed, never what it points to) or not opened at all. Folders deeper than GIVE_TREE_DEPTH
 * below `dir` are not descended into.
 */
export function giveTree(dir: string, uid: number): void {
  const top = openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    const stats = fstatSync(top);
    if (stats.uid !== uid || stats.gid !== uid) fchownSync(top, uid, uid);
    giveFolder(top, stats.dev, uid, GIVE_TREE_DEPTH);
  } finally {
    closeSync(top);
  }
}

function giveFolder(folder: number, dev: number, uid: number, depth: number): void {
  // Read an entry at a time: a folder the sandbox filled with a million names is never held whole.
  const dir = opendirSync(via(folder));
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) giveEntry(folder, entry.name, dev, uid, depth);
  } finally {
    dir.closeSync();
  }
}

function giveEntry(folder: number, name: string, dev: number, uid: number, depth: number): void {
  let stats: Stats;
  try {
    stats = lstatSync(via(folder, name));
  } catch {
    return; // gone since the listing
  }
  if (stats.dev !== dev) return;
  if (!stats.isDirectory()) {
    // A file with another name may be a host file's (a hard link only a host process can make): never given away.
    if (stats.nlink === 1 && (stats.uid !== uid || stats.gid !== uid)) lchownIfThere(via(folder, name), uid);
    return;
  }
  if (depth === 0) return;
  let sub: number;
  try {
    sub = openSync(via(folder, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch {
    return; // swapped for a link or a file since its lstat
  }
  try {
    const opened = fstatSync(sub);
    if (opened.dev !== dev) return;
    if (opened.uid !== uid || opened.gid !== uid) fchownSync(sub, uid, uid);
    giveFolder(sub, dev, uid, depth - 1);
  } finally {
    closeSync(sub);
  }
}

function lchownIfThere(file: string, uid: number): void {
  try {
    lchownSync(file, uid, uid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
