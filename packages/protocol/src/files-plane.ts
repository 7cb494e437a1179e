/**
 * The operator plane's listing (docs/planes.md, "The listing") and the console's view of the peer handles a session
 * minted (docs/planes.md, "In the console"): wire shapes shared by the door, `mur console` and the console.
 */

/** Where the operator plane is reached on a door (seed 000, "Planes"). */
export const FILES_PLANE_PATH = '/resources/files';

/** One entry of a listing. */
export interface FilesListingEntry {
  name: string;
  type: 'file' | 'folder';
  /** @unit bytes; 0 for a folder. */
  size: number;
  /** The mtime, RFC 3339 UTC with milliseconds. */
  modified: string;
}

/** `GET /resources/files/<folder>/`: a folder's entries, sorted by name, at most 10,000. */
export interface FilesListing {
  /** The folder under the root: '' for the root, else ending in '/'. */
  path: string;
  entries: FilesListingEntry[];
  truncated: boolean;
}

/** GET `/sessions/<sessionId>/peer-handles` under the record base: the handles a session minted, from its trace. */
export const CONSOLE_PEER_HANDLES_SUFFIX = '/peer-handles';

/**
 * live: redeemable now; used_up: every use taken; expired: past `expiresAt` with uses left. A session that ended
 * forgot its handles (they live in the door's memory), so its live-looking ones read `expired` or `session_ended`.
 */
export type PeerHandleState = 'live' | 'used_up' | 'expired' | 'session_ended';

/** A refused redeem of a known handle, as the trace recorded it (never the secret). */
interface PeerHandleRefusal {
  at: string;
  reason: string;
  audience: string | null;
}

export interface ConsolePeerHandle {
  handleId: string;
  /** The task whose share-file call minted it. */
  taskId: string | null;
  audience: string;
  /** The file under exports.peer_files.root. */
  path: string;
  mintedAt: string;
  expiresAt: string;
  uses: number;
  used: number;
  state: PeerHandleState;
  /** Served redeems (a GET answered 200), oldest first. */
  redeems: { at: string; audience: string; size: number | null }[];
  refusals: PeerHandleRefusal[];
}

export interface ConsolePeerHandlesResponse {
  sessionId: string;
  /** Newest minted first. */
  handles: ConsolePeerHandle[];
}
