/**
 * The HTTP API `mur console` serves beside the built console (murmur's own, not the A2A wire): shared by the server
 * in apps/door and the console that reads it.
 */

/** GET: the sessions registered on this host, each probed. */
export const CONSOLE_SESSIONS_PATH = '/api/sessions';
/** `<prefix><host>:<port>/<path>` is proxied, unbuffered, to `http://<host>:<port>/<path>` on loopback only. */
export const CONSOLE_DOOR_PROXY_PREFIX = '/api/door/';

/**
 * The waits before the console asks an unreachable door again, then every minute (docs/console.md, "Asking a door
 * again"): the page's door hold and the server's running-now watch both follow them. @unit ms
 */
export const UNREACHABLE_BACKOFF_MS = [5_000, 10_000, 20_000, 40_000, 60_000] as const;

/** GET: the doors `mur console --door URL` added (not registered on this host), proxied explicitly. */
export const CONSOLE_DOORS_PATH = '/api/doors';

/** One door added with `mur console --door URL [--token-file F]`. */
export interface ConsoleAddedDoor {
  /** `host:port`: its key in the console's routes and in the proxy path. */
  key: string;
  /** The URL as given (http or https). */
  url: string;
  /** A token file was given: the proxy sends `Authorization: Bearer <its token>` when the browser sends none. */
  hasToken: boolean;
}

export interface ConsoleDoorsResponse {
  doors: ConsoleAddedDoor[];
}

/** What a running session registers on its host, and what `mur ps` and `mur console` read back. */
export interface RegisteredSession {
  sessionId: string;
  name: string;
  version: string;
  /** http://<host:port> of its door. */
  url: string;
  pid: number;
  capsuleDir: string;
  recordsDir: string;
  startedAt: string;
}

/** One entry of GET /api/sessions. */
export interface ConsoleSession extends RegisteredSession {
  /** Its process is gone: the registry entry is reported, not trusted. */
  stale: boolean;
  /** Its door answered a card naming a JSONRPC interface. */
  reachable: boolean;
  /** Why it is not reachable. */
  reason?: string;
  /** Its tasks waiting for the operator's reply (TASK_STATE_INPUT_REQUIRED in its store), when the store could be read. */
  needsInput?: number;
}

export interface ConsoleSessionsResponse {
  sessions: ConsoleSession[];
}
