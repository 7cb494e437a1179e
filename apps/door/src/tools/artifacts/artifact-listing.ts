import semver from 'semver';
import { recordFits } from '../../artifacts/artifact-finder.js';
import type { InstallGrant } from '../../artifacts/install-grant.js';
import type { HeldArtifact } from '../../artifacts/place.js';
import { PlaceUnreadable } from '../../artifacts/place.js';
import type { StoreFolder } from '../../artifacts/store-folder.js';

/** The most matches a pattern's answer lists (seed 004). */
const MAX_MATCHES = 50;

/** One match of a pattern, as pull-artifact lists it (seed 004's keys, in its order). */
interface Match {
  artifact: string;
  runtime: string;
  description?: string;
  versions: string[];
  newest_fitting?: string;
  held_in: string[];
}

/**
 * What a pattern lists (seed 004): the artifacts the stores hold that the pattern names and an entry of their own
 * tier's list names, at most MAX_MATCHES sorted by name, with how many more matched and why a place could not be read.
 */
export async function listPattern(
  pattern: string,
  stores: readonly StoreFolder[],
  grant: InstallGrant,
): Promise<{ pattern: string; matches: Match[]; omitted: number; notes?: string[] }> {
  const notes: string[] = [];
  const byName = new Map<string, { held: HeldArtifact; places: string[] }[]>();
  for (const store of stores) {
    let held: HeldArtifact[];
    try {
      held = await store.matching(pattern);
    } catch (error) {
      if (!(error instanceof PlaceUnreadable)) throw error;
      notes.push(error.message);
      continue;
    }
    for (const h of held) byName.set(h.fullName, [...(byName.get(h.fullName) ?? []), { held: h, places: [store.label] }]);
  }
  const matches: Match[] = [];
  for (const [fullName, holdings] of [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const versions = holdings.flatMap((h) => h.held.versions);
    const newest = [...versions].sort((a, b) => semver.rcompare(a.version, b.version)).find((v) => v.record !== null);
    const runtime = newest?.record?.runtime;
    // A match is granted by its own tier: a runtime no record states, or a hook or a driver, is granted by none.
    if ((runtime !== 'tool' && runtime !== 'skill') || !grant.names(runtime, fullName)) continue;
    const fitting = versions.filter((v) => v.record !== null && recordFits(v.record) && semver.prerelease(v.version) === null).map((v) => v.version);
    matches.push({
      artifact: fullName,
      runtime,
      ...(newest?.record?.description === undefined ? {} : { description: newest.record.description }),
      versions: [...new Set(versions.map((v) => v.version))].sort(semver.rcompare),
      ...(fitting.length === 0 ? {} : { newest_fitting: fitting.sort(semver.rcompare)[0]! }),
      held_in: holdings.flatMap((h) => h.places),
    });
  }
  return { pattern, matches: matches.slice(0, MAX_MATCHES), omitted: Math.max(0, matches.length - MAX_MATCHES), ...(notes.length === 0 ? {} : { notes }) };
}
