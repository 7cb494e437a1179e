import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** A file or folder opened inside a root: the descriptor is what was checked, so nothing can swap it afterwards. */
export interface ConfinedEntry {
  readonly handle: FileHandle;
  readonly stats: Stats;
  /** The root's real path at the time of the open. */
  readonly rootReal: string;
  /** A path that reaches the open descriptor itself (/proc/self/fd/<n> on Linux), else its real path. */
  readonly viaDescriptor: string;
}

/** Whether `candidate` is `rootReal` or lies under it (both real paths). */
export function isInside(rootReal: string, candidate: string): boolean {
  return candidate === rootReal || candidate.startsWith(rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep);
}

const PROC_FD = '/proc/self/fd';

/**
 * Opens `segments` under `root` for a download (`kind: 'file'`, a regular file) or a listing (`'folder'`), or
 * returns null; null is every refusal (docs/planes.md, "Path confinement", steps 4 and 5):
 *
 * - the real path of the root and of the target are taken, and the target must lie inside the root, so a link
 *   anywhere on the path is followed only when it resolves inside (CWE-59);
 * - the real path is opened with O_NOFOLLOW, so its final component cannot have become a link since;
 * - the open descriptor is checked, not the name: fstat gives its kind, and on Linux /proc/self/fd/<n> gives where
 *   it really is, which must still be inside the root. A folder on the path swapped for a link after realpath is
 *   caught on what was opened: there is no window between the check and the open (CWE-367).
 */
export async function openConfined(root: string, segments: readonly string[], kind: 'file' | 'folder'): Promise<ConfinedEntry | null> {
  let rootReal: string;
  let targetReal: string;
  try {
    rootReal = await realpath(root);
    targetReal = await realpath(path.join(rootReal, ...segments));
  } catch {
    return null;
  }
  if (!isInside(rootReal, targetReal)) return null;
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (kind === 'folder' ? constants.O_DIRECTORY : 0);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below by its kind.
    handle = await open(targetReal, flags);
  } catch {
    return null;
  }
  try {
    const stats = await handle.stat();
    const kindOk = kind === 'file' ? stats.isFile() : stats.isDirectory();
    if (!kindOk) throw new Error('not the kind asked for');
    const viaDescriptor = `${PROC_FD}/${handle.fd}`;
    let opened: string | null = null;
    try {
      opened = await readlink(viaDescriptor);
    } catch {
      opened = null;
    }
    if (opened !== null) {
      if (!isInside(rootReal, opened)) throw new Error('the descriptor lies outside the root');
      return { handle, stats, rootReal, viaDescriptor };
    }
    // No /proc (not Linux): compare the descriptor with what the real path names now.
    const again = await open(targetReal, flags);
    try {
      const now = await again.stat();
      if (now.dev !== stats.dev || now.ino !== stats.ino || !isInside(rootReal, await realpath(targetReal))) throw new Error('moved');
    } finally {
      await again.close();
    }
    return { handle, stats, rootReal, viaDescriptor: targetReal };
  } catch {
    await handle.close().catch(() => undefined);
    return null;
  }
}
