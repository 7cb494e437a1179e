import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import semver from 'semver';
import { type FolderBeneath, folderBeneath, LinkRefused, OutsideRoot, openBeneath, viaDescriptor } from '../paths/beneath.js';
import { namesArtifact } from '../manifest/artifact-entries.js';
import { type HeldArtifact, type Place, PlaceUnreadable } from './place.js';
import { parseStoreRecord, RECORD_MAX_BYTES, RecordError, type StoreRecord } from './store-record.js';

/** Versions of one artifact a listing reads, and folders a pattern's listing visits, at most. */
const MAX_VERSIONS = 1000;
const MAX_LISTED_NAMES = 5000;

export const projectStoreOf = (capsuleDir: string): string => path.join(capsuleDir, '.murmur', 'store');
export const globalStoreOf = (murmurHome: string): string => path.join(murmurHome, 'store');

/** Where each store is, as a note the model may read names it: by the documented place, never the host path. */
const STORE_PATH = { 'project store': '.murmur/store in the capsule folder', 'global store': '$MURMUR_HOME/store' } as const;

/**
 * The folder `segments` names under a store's root, made where missing, through the walker with no link followed — the
 * root itself included, so a root that is a link is met as one (docs/artifacts.md, "The stores"). The root's parent is
 * the operator's (the capsule's `.murmur`, MURMUR_HOME, a --store path's folder). Throws LinkRefused, OutsideRoot.
 */
const storeFolderBeneath = (root: string, segments: readonly string[]): Promise<FolderBeneath> =>
  folderBeneath(path.dirname(root), [path.basename(root), ...segments], { links: 'refuse', make: { mode: 0o755, owner: null } });

const versionOf = (file: string, suffix: string): string | null => {
  if (!file.endsWith(suffix)) return null;
  const version = file.slice(0, -suffix.length);
  return semver.valid(version) === version ? version : null;
};

const newestFirst = (a: string, b: string): number => semver.rcompare(a, b);

/**
 * A store on this host (docs/artifacts.md, "The stores"): `<root>/<scope>/<name>/<version>.tgz` beside its record.
 * The door reads it through the walker (paths/beneath.ts), never following a link out of the root; mur publish writes it.
 */
export class StoreFolder implements Place {
  constructor(
    readonly label: 'project store' | 'global store',
    readonly root: string,
  ) {}

  /**
   * Whether the store exists, as a folder: a root that is a symbolic link is a place that cannot be read, as is one
   * that cannot be looked at; a root that is missing (or a file) holds nothing.
   */
  private async present(): Promise<boolean> {
    let stats: Stats;
    try {
      // lstat: the root's own entry, never what a link names (the walker below starts from the root's real path).
      stats = await lstat(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw this.unreadable(error);
    }
    if (stats.isSymbolicLink())
      throw new PlaceUnreadable(`the ${this.label} cannot be read: ${STORE_PATH[this.label]} is a symbolic link, which the door does not follow`);
    return stats.isDirectory();
  }

  /** Why the store cannot be read, by the system's error code: a note the model may read names no host path. */
  private unreadable(error: unknown): PlaceUnreadable {
    return new PlaceUnreadable(`the ${this.label} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'an error'})`);
  }

  /** The names in a folder of the store, or null when there is no such folder. */
  private async names(segments: string[]): Promise<string[] | null> {
    let folder: Awaited<ReturnType<typeof folderBeneath>>;
    try {
      folder = await folderBeneath(this.root, segments);
    } catch (error) {
      if (error instanceof OutsideRoot) return null;
      throw this.unreadable(error);
    }
    try {
      return await readdir(viaDescriptor(folder.handle));
    } finally {
      await folder.handle.close();
    }
  }

  async record(fullName: string, version: string): Promise<StoreRecord | null> {
    const [scope, name] = fullName.split('/') as [string, string];
    const opened = await openBeneath(this.root, [scope, name, `${version}.yaml`], 'file');
    if (opened === null) return null;
    try {
      if (opened.stats.size > RECORD_MAX_BYTES) return null;
      const text = (await opened.handle.readFile()).toString('utf8');
      const record = parseStoreRecord(text, `${this.label} ${scope}/${name}/${version}.yaml`);
      return record.artifact === `${scope}/${name}` && record.version === version ? record : null;
    } catch (error) {
      if (error instanceof RecordError) return null;
      throw error;
    } finally {
      await opened.handle.close();
    }
  }

  async held(fullName: string): Promise<HeldArtifact | null> {
    if (!(await this.present())) return null;
    const [scope, name] = fullName.split('/') as [string, string];
    const files = await this.names([scope, name]);
    if (files === null) return null;
    const versions = files
      .map((f) => versionOf(f, '.tgz'))
      .filter((v): v is string => v !== null)
      .sort(newestFirst)
      .slice(0, MAX_VERSIONS);
    if (versions.length === 0) return null;
    return { fullName, versions: await Promise.all(versions.map(async (version) => ({ version, record: await this.record(fullName, version) }))) };
  }

  async archive(fullName: string, version: string): Promise<Readable> {
    const [scope, name] = fullName.split('/') as [string, string];
    const opened = await openBeneath(this.root, [scope, name, `${version}.tgz`], 'file');
    if (opened === null) throw new PlaceUnreadable(`the ${this.label} no longer holds ${fullName} ${version}`);
    return opened.handle.createReadStream();
  }

  /** Every artifact whose full name `pattern` (ending in `*`) names, in name order, at most MAX_LISTED_NAMES visited. */
  async matching(pattern: string): Promise<HeldArtifact[]> {
    if (!(await this.present())) return [];
    const out: HeldArtifact[] = [];
    let visited = 0;
    const prefix = pattern.slice(0, -1);
    for (const scope of ((await this.names([])) ?? []).sort()) {
      if (!`${scope}/`.startsWith(prefix) && !prefix.startsWith(`${scope}/`)) continue;
      for (const name of ((await this.names([scope])) ?? []).sort()) {
        if (++visited > MAX_LISTED_NAMES) return out;
        const fullName = `${scope}/${name}`;
        if (!namesArtifact(pattern, fullName)) continue;
        const held = await this.held(fullName);
        if (held !== null) out.push(held);
      }
    }
    return out;
  }
}

/**
 * The digest a store at `root` records for one version, or null when it holds none (mur publish never changes a
 * published version); read through no link, as writeToStore writes.
 */
export async function publishedDigest(root: string, fullName: string, version: string): Promise<string | null> {
  const [scope, name] = fullName.split('/') as [string, string];
  const opened = await openBeneath(path.dirname(root), [path.basename(root), scope, name, `${version}.yaml`], 'file', { links: 'refuse' });
  if (opened === null) return null;
  try {
    if (opened.stats.size > RECORD_MAX_BYTES) return null;
    return parseStoreRecord((await opened.handle.readFile()).toString('utf8'), `${scope}/${name}/${version}.yaml`).digest;
  } catch (error) {
    if (error instanceof RecordError) return null;
    throw error;
  } finally {
    await opened.handle.close();
  }
}

/**
 * mur publish (and mur pull, of what a source sent): an archive and its record into the store at `root`. The root and
 * `<scope>/<name>/` are made or opened through the walker with no link followed; each file is written to a temporary
 * name made O_EXCL|O_NOFOLLOW in that opened folder, then renamed there. A link where a folder is expected is refused
 * (PlaceUnreadable, naming its path), and nothing is written.
 */
export async function writeToStore(root: string, fullName: string, version: string, archive: Buffer, recordText: string): Promise<string> {
  const segments = fullName.split('/');
  await mkdir(path.dirname(root), { recursive: true, mode: 0o755 });
  let folder: FolderBeneath;
  try {
    folder = await storeFolderBeneath(root, segments);
  } catch (error) {
    if (error instanceof LinkRefused)
      throw new PlaceUnreadable(
        `${path.join(path.dirname(root), error.at)} is a symbolic link: a store is written only into folders of its own, never through a link`,
      );
    if (error instanceof OutsideRoot) throw new PlaceUnreadable(`${path.join(root, ...segments)} cannot be made a folder of the store (${error.message})`);
    throw error;
  }
  try {
    for (const [file, bytes] of [
      [`${version}.tgz`, archive],
      [`${version}.yaml`, recordText],
    ] as const) {
      const temporary = viaDescriptor(folder.handle, `.${file}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      try {
        await handle.writeFile(bytes);
        await handle.close();
        await rename(temporary, viaDescriptor(folder.handle, file));
      } catch (error) {
        await handle.close().catch(() => undefined);
        await unlink(temporary).catch(() => undefined);
        throw error;
      }
    }
  } finally {
    await folder.handle.close();
  }
  return path.join(root, ...segments, `${version}.tgz`);
}
