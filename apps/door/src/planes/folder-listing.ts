import type { FilesListing, FilesListingEntry } from '@murmur/protocol';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { type ConfinedEntry, isInside } from '../paths/confined-open.js';
import { acceptableName } from '../paths/plane-path.js';

/** Most entries one listing names (the first by name); `truncated` says more were there. */
export const MAX_LISTING_ENTRIES = 10_000;

/** One entry of a listing (docs/planes.md, "The listing"); the wire shapes are @murmur/protocol's. */
export type ListingEntry = FilesListingEntry;
export type Listing = FilesListing;

/**
 * Lists an opened folder through its descriptor (so the folder listed is the one checked). A link is listed as what it
 * resolves to, only when that lies inside the root; links out, dangling links, special files and names the path rules refuse are left out, so a
 * listing never names what a download would refuse.
 */
export async function listFolder(folder: ConfinedEntry, segments: readonly string[]): Promise<Listing> {
  const names = (await readdir(folder.viaDescriptor)).sort();
  const entries: ListingEntry[] = [];
  let truncated = false;
  for (const name of names) {
    const entry = await describe(folder, name);
    if (entry === null) continue;
    if (entries.length === MAX_LISTING_ENTRIES) {
      truncated = true;
      break;
    }
    entries.push(entry);
  }
  return { path: segments.length === 0 ? '' : `${segments.join('/')}/`, entries, truncated };
}

async function describe(folder: ConfinedEntry, name: string): Promise<ListingEntry | null> {
  if (!acceptableName(name)) return null;
  const full = path.join(folder.viaDescriptor, name);
  try {
    let stats = await lstat(full);
    if (stats.isSymbolicLink()) {
      if (!isInside(folder.rootReal, await realpath(full))) return null;
      stats = await stat(full);
    }
    if (stats.isFile()) return { name, type: 'file', size: stats.size, modified: stats.mtime.toISOString() };
    if (stats.isDirectory()) return { name, type: 'folder', size: 0, modified: stats.mtime.toISOString() };
    return null;
  } catch {
    return null;
  }
}
