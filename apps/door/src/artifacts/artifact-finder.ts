import semver from 'semver';
import type { HeldArtifact, Place } from './place.js';
import { PlaceUnreadable } from './place.js';
import type { StoreRecord } from './store-record.js';
import { WIT_LEVEL } from './wit-level.js';

/** The place and version a pull takes, with its record when the place had one. */
interface Found {
  place: Place;
  version: string;
  record: StoreRecord | null;
}

/** What the places said of one name: where it was found, what each holds, and the places that could not be read. */
export interface Search {
  found: Found | null;
  held: { place: Place; held: HeldArtifact }[];
  /** Why a place was not consulted, one sentence each (seed 004: a pull's `notes`). */
  notes: string[];
}

/** Whether a record says its version fits this runtime: a native tool and a skill always do; a WASM tool at this WIT level. */
export function recordFits(record: StoreRecord | null): boolean {
  if (record === null) return true;
  return record.runtime !== 'tool' || record.implementation !== 'wasm' || record.wit === WIT_LEVEL;
}

/**
 * The version a pull without one takes: the newest whose record says it fits, prereleases left out; else the newest
 * release, whose own check then names why it does not fit.
 */
function newestToTry(held: HeldArtifact): { version: string; record: StoreRecord | null } | null {
  const releases = held.versions.filter((v) => semver.prerelease(v.version) === null);
  return releases.find((v) => recordFits(v.record)) ?? releases[0] ?? null;
}

/**
 * Finds `fullName` (at `version`, or the newest that fits) in `places`, in order (docs/artifacts.md): the first place
 * holding the version asked for answers; without a version, the newest fitting version of the first place that holds
 * one. `consult(i)` says whether place i is read at all given what the earlier ones answered (a source is read only when
 * no store answered). A place that cannot be read is skipped and named in `notes`.
 */
export async function findArtifact(
  places: readonly Place[],
  fullName: string,
  version: string | null,
  consult: (place: Place, sofar: Search) => boolean = () => true,
): Promise<Search> {
  const search: Search = { found: null, held: [], notes: [] };
  for (const place of places) {
    if (search.found !== null || !consult(place, search)) break;
    let held: HeldArtifact | null;
    try {
      held = await place.held(fullName);
    } catch (error) {
      if (!(error instanceof PlaceUnreadable)) throw error;
      search.notes.push(error.message);
      continue;
    }
    if (held === null) continue;
    search.held.push({ place, held });
    const chosen = version === null ? newestToTry(held) : (held.versions.find((v) => v.version === version) ?? null);
    if (chosen !== null) search.found = { place, version: chosen.version, record: chosen.record };
  }
  return search;
}

/** Every version the places hold, newest first, each once. */
export function versionsHeld(search: Search): string[] {
  return [...new Set(search.held.flatMap((h) => h.held.versions.map((v) => v.version)))].sort(semver.rcompare);
}

/** The newest version the places hold whose record says it fits, other than `except`. */
export function newestFittingHeld(search: Search, except: string): string | null {
  const fitting = search.held.flatMap((h) =>
    h.held.versions.filter((v) => v.version !== except && v.record !== null && recordFits(v.record)).map((v) => v.version),
  );
  return fitting.sort(semver.rcompare)[0] ?? null;
}
