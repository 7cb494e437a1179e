import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * The door's own work on files the agent can change (docs/sandbox.md, "The door's own file work"): a path is opened one
 * component at a time, each relative to the folder opened before it (through /proc/self/fd/<n>/<name>, with
 * O_NOFOLLOW), so a folder swapped for a link at any moment is met as a link and never followed by the kernel. A link
 * met on the way is read and resolved here, inside the root: followed only while its target stays under the root.
 * Linux only (the door's platform): /proc/self/fd is what makes a descriptor a starting point for a path.
 */

/** Links followed on one walk before it is refused, as the kernel's own limit. */
const MAX_LINKS = 40;
/** Times one component is looked at again when it changed between its lstat and its open (a concurrent swap). */
const MAX_RETRIES = 8;

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** A path that reaches an open descriptor itself, whatever became of its name since. */
export const viaDescriptor = (handle: FileHandle, name?: string): string =>
  name === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${name}`;

/** Why a walk stopped short: nothing there, a link or `..` out of the root, or a component of the wrong kind. */
export class OutsideRoot extends Error {
  override readonly name: string = 'OutsideRoot';
}

/** A walk that follows no link (`links: 'refuse'`) met one: `at` is its path under the root, as the walk went. */
export class LinkRefused extends OutsideRoot {
  override readonly name = 'LinkRefused';

  constructor(readonly at: string) {
    super(`${at} is a symbolic link`);
  }
}

/** A folder reached under the root: its open descriptor, and the root's real path. */
export interface FolderBeneath {
  readonly handle: FileHandle;
  readonly rootReal: string;
}

export interface WalkOptions {
  /** Make each missing folder on the way (in the folder already opened), with this mode; refuse a missing one otherwise. */
  make?: { mode: number; owner: number | null } | null;
  /**
   * `inside`: a link met on the way is followed while its target stays under the root. `refuse`: no link is followed,
   * the last component's included; the walk throws LinkRefused (for the door's own folders, which hold none).
   * @default 'inside'
   */
  links?: 'inside' | 'refuse';
}

/**
 * Opens the folder that holds `segments`' last component (or, with `folder: true`, the folder `segments` names) under
 * `root`; returns it with the last name still to open (null for a folder). Throws OutsideRoot for every refusal; the
 * handles it opened on the way are closed.
 */
async function walk(
  root: string,
  segments: readonly string[],
  options: WalkOptions & { folder: boolean },
): Promise<{ folder: FolderBeneath; last: string | null }> {
  const rootReal = await realpath(root);
  const stack: FileHandle[] = [await open(rootReal, O_RDONLY | O_DIRECTORY)];
  /** The names of the folders opened after the root, as `stack` holds them. */
  const names: string[] = [];
  const pending = [...segments];
  let links = 0;
  let retries = 0;
  let made: string | null = null;
  const top = () => stack[stack.length - 1]!;
  const finish = async (last: string | null) => {
    const handle = stack.pop()!;
    await Promise.all(stack.map((h) => h.close().catch(() => undefined)));
    return { folder: { handle, rootReal }, last };
  };
  const fail = async (why: string | OutsideRoot): Promise<never> => {
    await Promise.all(stack.map((h) => h.close().catch(() => undefined)));
    throw typeof why === 'string' ? new OutsideRoot(why) : why;
  };
  const again = async (name: string, why: string) => {
    pending.unshift(name);
    if (++retries > MAX_RETRIES) await fail(why);
  };
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (stack.length === 1) return fail('a link climbs out of the root');
      await stack.pop()!.close();
      names.pop();
      continue;
    }
    const isLast = pending.length === 0;
    const via = viaDescriptor(top(), name);
    let stats: Stats | null;
    try {
      stats = await lstat(via);
    } catch {
      stats = null;
    }
    if (stats === null) {
      if (isLast && !options.folder) return finish(name);
      if (!options.make) return fail('not there');
      try {
        await mkdir(via, { mode: options.make.mode });
        made = name;
        pending.unshift(name);
      } catch (error) {
        // Made meanwhile (by a command, perhaps as a link): look at it again.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return fail('cannot be made');
        await again(name, 'changing under the walk');
      }
      continue;
    }
    if (stats.isSymbolicLink()) {
      if (options.links === 'refuse') return fail(new LinkRefused([...names, name].join('/')));
      if (++links > MAX_LINKS) return fail('too many links');
      let target: string;
      try {
        target = await readlink(via);
      } catch {
        await again(name, 'changing under the walk');
        continue;
      }
      if (path.isAbsolute(target)) {
        // An absolute link stays inside only when it names a path under the root's real path.
        if (target !== rootReal && !target.startsWith(`${rootReal}/`)) return fail('a link leads out of the root');
        for (const handle of stack.splice(1)) await handle.close();
        names.length = 0;
        pending.unshift(...path.relative(rootReal, target).split('/'));
      } else pending.unshift(...target.split('/'));
      continue;
    }
    if (isLast && !options.folder) return finish(name);
    if (!stats.isDirectory()) return fail('not a folder');
    let opened: FileHandle;
    try {
      opened = await open(via, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch {
      // Swapped for a link (ELOOP) or a file (ENOTDIR) since the lstat: look at it again.
      await again(name, 'changing under the walk');
      continue;
    }
    // A folder this walk made goes to the owner asked for, through its descriptor: the one made, or nothing.
    if (made === name && options.make?.owner != null) await opened.chown(options.make.owner, options.make.owner).catch(() => undefined);
    made = null;
    stack.push(opened);
    names.push(name);
  }
  return finish(null);
}

/** The folder `segments` names under `root`, opened; made where missing when `make` says how. Throws OutsideRoot. */
export async function folderBeneath(root: string, segments: readonly string[], options: WalkOptions = {}): Promise<FolderBeneath> {
  return (await walk(root, segments, { ...options, folder: true })).folder;
}

/** A file or folder opened under a root: the descriptor is what was checked, so nothing can swap it afterwards. */
export interface OpenedBeneath {
  readonly handle: FileHandle;
  readonly stats: Stats;
  readonly rootReal: string;
  /** A path that reaches the open descriptor itself (/proc/self/fd/<n>). */
  readonly viaDescriptor: string;
}

/**
 * Opens `segments` under `root` for reading, a regular file (`kind: 'file'`), a folder, or either; null for every refusal
 * (absent, a link out of the root, the wrong kind, a FIFO or device — opened with O_NONBLOCK, so it cannot stall the
 * door, and refused by its kind on the descriptor; with `links: 'refuse'`, a link anywhere on the way). An empty
 * `segments` is the root itself.
 */
export async function openBeneath(
  root: string,
  segments: readonly string[],
  kind: 'file' | 'folder' | 'either',
  options: Pick<WalkOptions, 'links'> = {},
): Promise<OpenedBeneath | null> {
  let folder: FolderBeneath;
  let last: string | null;
  try {
    ({ folder, last } = await walk(root, segments, { ...options, folder: kind === 'folder' }));
  } catch {
    return null;
  }
  let handle: FileHandle = folder.handle;
  if (last !== null) {
    try {
      handle = await open(viaDescriptor(folder.handle, last), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch {
      await folder.handle.close();
      return null;
    } finally {
      if (handle !== folder.handle) await folder.handle.close();
    }
  }
  try {
    const stats = await handle.stat();
    const fits = kind === 'file' ? stats.isFile() : kind === 'folder' ? stats.isDirectory() : stats.isFile() || stats.isDirectory();
    if (!fits) throw new OutsideRoot('not the kind asked for');
    return { handle, stats, rootReal: folder.rootReal, viaDescriptor: viaDescriptor(handle) };
  } catch {
    await handle.close().catch(() => undefined);
    return null;
  }
}
