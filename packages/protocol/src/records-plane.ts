/**
 * The record plane (docs/console.md, "Every door serves its record"): every door serves its own session's record
 * under `/resources/records/…`, with the paths and shapes of mur console's `/api/records/…`, so a reader swaps the
 * base. Judged at seed 000's step 4 with the `resources/records` scope on an authenticated door.
 */
import type { ConsoleFormationDelegation, ConsoleMemberCall } from './console-formations.js';

/** Where a door serves its record; `/api/records/<rest>` on mur console is `<this>/<rest>` on a door. */
export const RECORDS_PLANE_PATH = '/resources/records';
/** The scope an authenticated door's record plane takes (the operator token holds it). */
export const RECORDS_SCOPE = 'resources/records';
/** mur console's record API base, which the plane mirrors. */
export const CONSOLE_RECORDS_BASE = '/api/records';
/** GET: the member calls and the delegations the door's session made as a caller (a formation member's calls). */
export const RECORD_CALLS_SUFFIX = '/calls';

/** A page of entries stops early once its entries' JSON passes this many characters (the first entry always goes). */
export const RECORD_PAGE_CHARS_MAX = 4 * 1024 * 1024;

/** One member call as the caller's door serves it: the formation's call, with the callee's door as the seat knows it. */
export interface RecordMemberCall extends ConsoleMemberCall {
  /** The callee's door (its roster seat), or null when this door does not know it. */
  calleeUrl: string | null;
}

export interface RecordMemberCallsResponse {
  sessionId: string;
  calls: RecordMemberCall[];
  /** Its delegations to sub-capsules, newest start first; `member` is the session's capsule name. */
  delegations: ConsoleFormationDelegation[];
}

/** GET: the formation the door's session is a member of, as its seat knows it (404 on a door in no formation). */
export const RECORD_FORMATION_SUFFIX = '/formation';

interface RecordFormationMember {
  member: string;
  sessionId: string;
  url: string;
  pid: number;
  /** The member that runs the launch's task. */
  entry: boolean;
}

/** A formation as one member's door knows it (docs/console.md, "Formations discovered from added doors"). */
export interface RecordFormationResponse {
  /** `<name>-<supervisor pid>`, the key the formation's own host registers it under. */
  key: string;
  name: string;
  /** The supervisor's process, on the formation's host. */
  pid: number;
  entry: string;
  /** The roster file, on the formation's host. */
  rosterFile: string;
  startedAt: string;
  /** This door's member. */
  member: string;
  /** In roster order. */
  members: RecordFormationMember[];
}
