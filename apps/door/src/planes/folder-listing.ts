import type { FilesListing, FilesListingEntry } from '@murmur/protocol';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { type OpenedBeneath, openBeneath } from '../paths/beneath.js';
import { acceptableName } from '../paths/plane-path.js';

/** Most entries one listing names (the first by name); `truncated` says more were there. */
const MAX_LISTING_ENTRIES = 10_000;

/** One entry of a listing (docs/planes.md, "The listing"); the wire shapes are @murmur/protocol's. */
type ListingEntry = FilesListingEntry;
export type Listing = FilesListing;

/**
 * Lists an opened folder through its descriptor (so the folder listed is the one checked). A link is listed as what it
 * resolves to, only when that lies inside the root; links out, dangling links, special files and names the path rules refuse are left out, so a
 * listing never names what a download would refuse.
 */
export async function listFolder(folder: OpenedBeneath, segments: readonly string[]): Promise<Listing> {
  const names = (await readdir(folder.viaDescriptor)).sort();
  const entries: ListingEntry[] = [];
  let truncated = false;
  for (const name of names) {
    const entry = await describe(folder, segments, name);
    if (entry === null) continue;
    if (entries.length === MAX_LISTING_ENTRIES) {
      truncated = true;
      break;
    }
    entries.push(entry);
  }
  return { path: segments.length === 0 ? '' : `${segments.join('/')}/`, entries, truncated };
}

async function describe(folder: OpenedBeneath, segments: readonly string[], name: string): Promise<ListingEntry | null> {
  if (!acceptableName(name)) return null;
  try {
    let stats = await lstat(path.join(folder.viaDescriptor, name));
    if (stats.isSymbolicLink()) {
      // What the link resolves to, walked under the root as a download would be: nothing outside is ever looked at.
      const target = await openBeneath(folder.rootReal, [...segments, name], 'either');
      if (target === null) return null;
      stats = target.stats;
      await target.handle.close();
    }
    if (stats.isFile()) return { name, type: 'file', size: stats.size, modified: stats.mtime.toISOString() };
    if (stats.isDirectory()) return { name, type: 'folder', size: 0, modified: stats.mtime.toISOString() };
    return null;
  } catch {
    return null;
  }
}
