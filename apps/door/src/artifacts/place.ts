import type { Readable } from 'node:stream';
import type { ArtifactPlace } from '@murmur/protocol';
import type { StoreRecord } from './store-record.js';

/** The versions a place holds of one artifact, and what it knows of each. */
export interface HeldArtifact {
  fullName: string;
  /** Every version held, with its record when it could be read. */
  versions: { version: string; record: StoreRecord | null }[];
}

/**
 * Somewhere artifacts are found (docs/artifacts.md): the project store, the global store, a scope's source. Every
 * answer is untrusted and bounded; a place that cannot be read throws PlaceUnreadable.
 */
export interface Place {
  readonly label: ArtifactPlace;
  /** What the place holds of `fullName`; null when it holds nothing of it. */
  held(fullName: string): Promise<HeldArtifact | null>;
  /** The record of one version, or null when the place has none that reads. */
  record(fullName: string, version: string): Promise<StoreRecord | null>;
  /** The archive of one version, as sent. */
  archive(fullName: string, version: string): Promise<Readable>;
}

/** A place that could not be consulted: the reason names it. */
export class PlaceUnreadable extends Error {
  override readonly name = 'PlaceUnreadable';
}
