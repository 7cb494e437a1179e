import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ARTIFACT_CODE } from '@murmur/protocol';
import { ArchiveRefusal } from '../../artifacts/archive-bounds.js';
import { unpackArchive } from '../../artifacts/archive-unpack.js';
import { type ArtifactFolder, readArtifactFolder, RoleMismatch } from '../../artifacts/artifact-folder.js';
import { findArtifact, newestFittingHeld, type Search, versionsHeld } from '../../artifacts/artifact-finder.js';
import { shortDigest } from '../../artifacts/content-digest.js';
import { GithubSource } from '../../artifacts/github-source.js';
import { readGithubSource } from '../../artifacts/github-source-name.js';
import type { InstallGrant } from '../../artifacts/install-grant.js';
import type { Lock, Pin } from '../../artifacts/murmur-lock.js';
import { type Place, PlaceUnreadable } from '../../artifacts/place.js';
import { globalStoreOf, projectStoreOf, StoreFolder } from '../../artifacts/store-folder.js';
import { doesNotFit, WIT_LEVEL, witFit } from '../../artifacts/wit-level.js';
import { ComponentUnprepared, type WasmHost } from '../wasm/wasm-host.js';
import { PullRefusal } from './pull-refusal.js';

/** Who pulls, which decides where it may look and what it must be granted (docs/artifacts.md). */
export type Puller =
  /** pull-artifact: the grant's tiers; a scope's source only with install.from: [stores, sources], and only for an owner the lock records. */
  | { kind: 'agent'; grant: InstallGrant }
  /** mur pull: the stores, then the scope's source (`source`, or the lock's); an owner the lock does not record yet is trusted on first use. */
  | { kind: 'operator'; source: string | null }
  /** Staging a declared artifact: the stores only, at the pinned version. */
  | { kind: 'staging' };

/** A pull that passed every check: unpacked into `folder` (a temporary folder of the caller's), not yet pinned nor installed. */
export interface Fetched {
  artifact: ArtifactFolder;
  digest: string;
  fetchedFrom: Place['label'];
  /** The owner id a source answered; null from a store. */
  owner: string | null;
  /** The source a scope's entry in the lock should name, when the pull came from one. */
  source: string | null;
  /** A WASM tool's WIT level, as its component says. */
  wit: string | null;
  notes: string[];
}

export interface FetchDeps {
  capsuleDir: string;
  murmurHome: string;
  sourceApiUrl: string;
  wasm: WasmHost;
  /** Where pulls are unpacked before they are checked; a folder of the runtime's own. */
  workRoot: string;
  signal?: AbortSignal;
}

/** The places a pull of `fullName` consults, in order: the project store, the global store, and the scope's source when the puller may read it. */
function placesFor(deps: FetchDeps, lock: Lock, fullName: string, puller: Puller): { places: Place[]; source: GithubSource | null } {
  const stores: Place[] = [new StoreFolder('project store', projectStoreOf(deps.capsuleDir)), new StoreFolder('global store', globalStoreOf(deps.murmurHome))];
  const scope = fullName.split('/')[0]!;
  const named =
    puller.kind === 'operator'
      ? (puller.source ?? lock.scopes[scope]?.source ?? null)
      : puller.kind === 'agent' && puller.grant.fromSources
        ? (lock.scopes[scope]?.source ?? null)
        : null;
  const repo = named === null ? null : readGithubSource(named);
  const source = repo === null ? null : new GithubSource(repo, deps.sourceApiUrl, deps.signal);
  return { places: source === null ? stores : [...stores, source], source };
}

const labelOf = (places: readonly Place[]) => places.map((p) => p.label).join(', ');

/**
 * Finds, fetches, unpacks and checks one artifact as docs/artifacts.md orders it: the places, the source's owner (before
 * its archive is read), the payload's hash against its record, its role, its tier, its WIT level, and an existing pin.
 * Every refusal is a PullRefusal and leaves nothing behind.
 */
export async function fetchArtifact(deps: FetchDeps, lock: Lock, fullName: string, asked: string | null, puller: Puller): Promise<Fetched> {
  const pin: Pin | undefined = lock.artifacts[fullName];
  if (asked !== null && pin !== undefined && pin.version !== asked) {
    throw PullRefusal.conflict(fullName, `murmur.lock pins ${pin.version} (${shortDigest(pin.digest)}), and this pull asks for ${asked}`);
  }
  const version = asked ?? pin?.version ?? null;
  const { places, source } = placesFor(deps, lock, fullName, puller);
  // A source is read only for a version no store holds (docs/artifacts.md, "Found in").
  const search = await findArtifact(places, fullName, version, (place, sofar) => place !== source || sofar.found === null);
  if (search.found === null) {
    // A place that could not be read may hold it: that place failed, not the name.
    if (search.notes.length > 0) throw PullRefusal.notFetched(search.notes.join('; '));
    throw PullRefusal.notFound(notFoundText(fullName, version, places, search));
  }
  const { place } = search.found;
  const owner = place === source ? await checkOwner(source, lock, fullName, puller) : null;
  const record = search.found.record ?? (await readPlace(() => place.record(fullName, search.found!.version)));
  const at = `${fullName} ${search.found.version}`;
  if (record === null) throw PullRefusal.notFetched(`the ${placeWord(place)} holds no record of ${at} that reads`);
  const folder = path.join(deps.workRoot, `.pull-${randomUUID()}`);
  let unpacked: Awaited<ReturnType<typeof unpackArchive>>;
  try {
    unpacked = await unpackArchive(await readPlace(() => place.archive(fullName, search.found!.version)), folder);
  } catch (error) {
    if (error instanceof ArchiveRefusal) throw PullRefusal.notFetched(`the ${placeWord(place)}'s archive of ${at} failed a check: ${error.message}`);
    throw error;
  }
  try {
    if (unpacked.digest !== record.digest) {
      throw PullRefusal.notFetched(
        `the ${placeWord(place)}'s archive of ${at} does not match its recorded digest (${shortDigest(record.digest)} recorded, ${shortDigest(unpacked.digest)} found)`,
      );
    }
    const artifact = await readChecked(folder, at);
    const { manifest } = artifact;
    if (manifest.name !== fullName || manifest.version !== search.found.version) {
      throw PullRefusal.notFetched(`the ${placeWord(place)}'s archive of ${at} says it is ${manifest.name} ${manifest.version}`);
    }
    if (manifest.runtime === 'hook' || manifest.runtime === 'driver')
      throw PullRefusal.notGranted(`${fullName} is a ${manifest.runtime}; artifacts are pulled as skills and tools only`);
    if (puller.kind === 'agent' && !puller.grant.names(manifest.runtime, fullName)) {
      throw PullRefusal.notGranted(`${fullName} is a ${manifest.runtime}, and ${puller.grant.quote(manifest.runtime)} does not name it`);
    }
    const wit = manifest.implementation === 'wasm' ? await checkLevel(deps.wasm, artifact, unpacked.digest, search) : null;
    if (pin !== undefined && pin.digest !== unpacked.digest) {
      throw PullRefusal.conflict(
        fullName,
        `murmur.lock pins ${pin.version} as ${shortDigest(pin.digest)}, and the ${placeWord(place)} holds ${manifest.version} as ${shortDigest(unpacked.digest)}`,
      );
    }
    return { artifact, digest: unpacked.digest, fetchedFrom: place.label, owner, source: place === source ? source.label : null, wit, notes: search.notes };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

const placeWord = (place: Place): string => (place.label.startsWith('github:') ? `source ${place.label}` : place.label);

/** A place's answer, or not-fetched naming what failed. */
async function readPlace<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PlaceUnreadable) throw PullRefusal.notFetched(error.message);
    throw error;
  }
}

async function readChecked(folder: string, at: string): Promise<ArtifactFolder> {
  try {
    return await readArtifactFolder(folder, at);
  } catch (error) {
    if (error instanceof RoleMismatch) throw PullRefusal.notGranted(error.message);
    if (error instanceof ArchiveRefusal) throw PullRefusal.notFetched(`${at} failed a check: ${error.message}`);
    throw error;
  }
}

/** The scope's owner as the source answers it, against the lock (seed 004: E-REG-010), before any archive is read. */
async function checkOwner(source: GithubSource, lock: Lock, fullName: string, puller: Puller): Promise<string> {
  const scope = fullName.split('/')[0]!;
  const answered = await readPlace(() => source.ownerId());
  const recorded = lock.scopes[scope]?.owner;
  if (recorded === answered) return answered;
  if (recorded === undefined && puller.kind === 'operator') return answered;
  const records = recorded === undefined ? `murmur.lock records no owner for scope ${scope}` : `murmur.lock records owner ${recorded} for scope ${scope}`;
  throw PullRefusal.notFetched(`${ARTIFACT_CODE.wrongOwner}: ${source.label} answers for owner ${answered}, and ${records}`);
}

/** A WASM tool's component against the WIT level this runtime serves: its WIT read from the component itself. */
async function checkLevel(wasm: WasmHost, artifact: ArtifactFolder, digest: string, search: Search): Promise<string> {
  const { manifest } = artifact;
  const newest = () => newestFittingHeld(search, manifest.version);
  let wit: string;
  try {
    wit = (await wasm.prepare(digest, artifact.entryFile)).wit;
  } catch (error) {
    if (!(error instanceof ComponentUnprepared)) throw error;
    throw PullRefusal.doesNotFit(doesNotFit(manifest.name, manifest.version, { fits: false, level: null, why: error.message }, newest()));
  }
  const fit = witFit(wit);
  if (!fit.fits) throw PullRefusal.doesNotFit(doesNotFit(manifest.name, manifest.version, fit, newest()));
  return WIT_LEVEL;
}

function notFoundText(fullName: string, version: string | null, places: readonly Place[], search: Search): string {
  const asked = version === null ? fullName : `${fullName}@${version}`;
  const held = versionsHeld(search);
  const also = held.length > 0 ? `; versions held: ${held.join(', ')}` : '';
  return `no allowed place (${labelOf(places)}) holds ${asked}${also}`;
}
