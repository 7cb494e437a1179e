/**
 * What pull-artifact and remove-artifact answer and what records say of artifacts (seed 004; docs/artifacts.md): the
 * tokens every refusal opens with, murmur's own codes, and the lock-conflict sentence. The door writes them, the
 * console and clients read them; one copy.
 */

/** The token a refusal opens with (seed 004, "Refusals"; remove-artifact's not-removable:). */
export const ARTIFACT_REFUSAL = {
  notGranted: 'not-granted:',
  notFound: 'not-found:',
  doesNotFit: 'does-not-fit:',
  notFetched: 'not-fetched:',
  notRemovable: 'not-removable:',
} as const;

/** murmur's error codes for artifacts (seed 004). */
export const ARTIFACT_CODE = {
  /** An artifact whose tool name is a runtime-provided tool's, at staging or in a pull. */
  reservedName: 'E-CAP-013',
  /** A payload that does not fit the WIT level this runtime serves. */
  witLevel: 'E-WIT-LEVEL-001',
  /** A source that answers for an owner murmur.lock does not record for the scope. */
  wrongOwner: 'E-REG-010',
} as const;

/** Seed 004: a pin of the same name at another version or digest. */
export function lockConflict(name: string, why: string): string {
  return `murmur.lock conflict for '${name}': ${why}`;
}

/** Where an artifact was found: a store, or a scope's GitHub source. */
export type ArtifactPlace = 'project store' | 'global store' | `github:${string}`;

/** The record API's path, after `/sessions/<id>`, of a session's artifacts (docs/console.md, "Artifacts"). */
export const CONSOLE_ARTIFACTS_SUFFIX = '/artifacts';

/** A session's artifacts: declared, pulled, removed, oldest first. */
export interface ConsoleArtifactsResponse {
  sessionId: string;
  artifacts: SessionArtifact[];
}

/** An artifact of a session, as the console lists it (docs/console.md, "Artifacts"). */
export interface SessionArtifact {
  artifact: string;
  version: string;
  digest: string;
  runtime: 'tool' | 'skill';
  implementation: 'native' | 'wasm' | null;
  toolName: string;
  fetchedFrom: ArtifactPlace;
  /** declared: staged from murmur.yaml; pulled: by pull-artifact, in `taskId`. */
  origin: 'declared' | 'pulled';
  taskId: string | null;
  /** When it was staged or pulled, RFC 3339. */
  at: string;
  /** When remove-artifact took it out, or null. */
  removedAt: string | null;
}
