/**
 * Every HTTP refusal body murmur answers, in one table with one builder each: the door's token, consent, scope and
 * path refusals (seed 000, "What the door answers", steps 2, 3, 5 and 11) and `mur console`'s own (its door proxy
 * and its API). The body is always `{"error": "<code>", "message": "<sentence>"}`, never a JSON-RPC envelope.
 *
 * The sentences are part of the wire: tests pin them byte for byte, and the peer_not_accepted body must be
 * byte-identical for every request it refuses (seed 000). Change one only with its tests.
 */

/** code → HTTP status, and who answers it. `satisfies` keeps every row's shape checked. */
export const HTTP_REFUSALS = {
  /** Step 2: no Authorization header on a door declaring network.authentication. */
  unauthenticated: { code: 'unauthenticated', status: 401, from: 'door' },
  /** Step 2: not `Bearer <token>`, a token this session did not mint, or more than one Authorization header. */
  invalid_token: { code: 'invalid_token', status: 401, from: 'door' },
  /** Step 3: a peer-origin request to a capsule that does not declare exports.peer_tasks.accept. */
  peer_not_accepted: { code: 'peer_not_accepted', status: 403, from: 'door' },
  /** Step 11 (and 4): a valid token whose credential lacks the method's scope. */
  insufficient_scope: { code: 'insufficient_scope', status: 403, from: 'door' },
  /** Step 5 on a door; an unknown path under /api on mur console. */
  not_found: { code: 'not_found', status: 404, from: 'door or console' },
  /** A request under /resources/files or /resources/peer while the planes are not served (docs/decisions.md, "Planes"). */
  plane_not_served: { code: 'plane_not_served', status: 404, from: 'door' },
  /** The operator plane: every path that names no file or folder inside the root, escapes included (docs/planes.md). */
  file_not_found: { code: 'file_not_found', status: 404, from: 'door' },
  /** The peer plane: every handle that does not serve a file to this audience (docs/planes.md, "One refusal"). */
  handle_not_found: { code: 'handle_not_found', status: 404, from: 'door' },
  /** A plane's path with a method other than GET or HEAD (docs/planes.md); answered with `Allow: GET, HEAD`. */
  method_not_allowed: { code: 'method_not_allowed', status: 405, from: 'door' },
  /** The operator plane: a Range that starts at or past the file's end (RFC 9110 §15.5.17). */
  range_not_satisfiable: { code: 'range_not_satisfiable', status: 416, from: 'door' },
  /** The control surface (docs/control.md): a POST whose body is not `{"setting", "value"}` as JSON; a record query parameter out of range. */
  invalid_request: { code: 'invalid_request', status: 400, from: 'door' },
  /** The control surface: a setting it does not change, or one this capsule does not have. */
  setting_not_controllable: { code: 'setting_not_controllable', status: 422, from: 'door' },
  /** The control surface: a value the setting's checks refuse (switch-driver's checks and messages). */
  control_refused: { code: 'control_refused', status: 422, from: 'door' },
  /** mur console's proxy: the path's door address is not host:port. */
  bad_address: { code: 'bad_address', status: 400, from: 'console' },
  /** mur console's proxy: the door address is not on this machine's loopback. */
  not_loopback: { code: 'not_loopback', status: 403, from: 'console' },
  /** mur console's proxy: nothing answered at the door address (door down, port closed). */
  door_unreachable: { code: 'door_unreachable', status: 502, from: 'console' },
  /** mur console: a request whose Host names neither this machine (localhost, an IP address) nor its --host (DNS rebinding). */
  misdirected: { code: 'misdirected', status: 421, from: 'console' },
} as const satisfies Record<string, { code: string; status: number; from: 'door' | 'console' | 'door or console' }>;

/** The `error` code of an HTTP refusal body. */
export type HttpRefusalCode = keyof typeof HTTP_REFUSALS;

/** The body of an HTTP refusal. Serialize it with encodeRefusalBody (key order: error, then message). */
export interface HttpRefusalBody<C extends HttpRefusalCode = HttpRefusalCode> {
  error: C;
  message: string;
}

/** Whether `code` (e.g. an HttpRefusalError's `code`) is a row of the table. */
export function isHttpRefusalCode(code: unknown): code is HttpRefusalCode {
  return typeof code === 'string' && Object.hasOwn(HTTP_REFUSALS, code);
}

/** The HTTP status a refusal is answered with. */
export function refusalStatus(code: HttpRefusalCode): number {
  return HTTP_REFUSALS[code].status;
}

/** The body as the wire carries it: `{"error":"…","message":"…"}`, always in that key order. */
export function encodeRefusalBody(body: HttpRefusalBody): string {
  return JSON.stringify({ error: body.error, message: body.message });
}

// --- the door (seed 000, "What the door answers") --------------------------------------------------------------

/**
 * The www-authenticate challenge of a door refusal (RFC 6750 §3): `Bearer realm="<capsule name>"`, plus
 * `error="invalid_token"` or `error="insufficient_scope", scope="<scope>"`.
 */
export function bearerChallenge(realm: string, error?: { code: 'invalid_token' } | { code: 'insufficient_scope'; scope: string }): string {
  const base = `Bearer realm="${realm}"`;
  if (error === undefined) return base;
  return error.code === 'invalid_token' ? `${base}, error="invalid_token"` : `${base}, error="insufficient_scope", scope="${error.scope}"`;
}

/** 401 unauthenticated: no Authorization header. */
export function unauthenticatedRefusal(): HttpRefusalBody<'unauthenticated'> {
  return { error: 'unauthenticated', message: 'this door needs a bearer token: send Authorization: Bearer <token> (mur token prints them)' };
}

/** Why a token was refused 401 invalid_token. */
export type InvalidTokenWhy = 'several-headers' | 'not-bearer' | 'unknown-token';

const INVALID_TOKEN_MESSAGES: Readonly<Record<InvalidTokenWhy, string>> = {
  'several-headers': 'send one Authorization header, not several',
  'not-bearer': 'the Authorization header must be Bearer <token>',
  'unknown-token': 'this token was not minted by this session, or the session has been restarted since',
};

/** 401 invalid_token. */
export function invalidTokenRefusal(why: InvalidTokenWhy): HttpRefusalBody<'invalid_token'> {
  return { error: 'invalid_token', message: INVALID_TOKEN_MESSAGES[why] };
}

/** 403 peer_not_accepted: byte-identical for every request it refuses (seed 000, step 3). */
export function peerNotAcceptedRefusal(): HttpRefusalBody<'peer_not_accepted'> {
  return {
    error: 'peer_not_accepted',
    message: 'this capsule does not accept tasks from peer capsules: it does not declare exports.peer_tasks.accept',
  };
}

/** 403 insufficient_scope: names the credential and the scope it lacks (`credential 'watcher' does not reach SendMessage`). */
export function insufficientScopeRefusal(principal: string, scope: string): HttpRefusalBody<'insufficient_scope'> {
  return { error: 'insufficient_scope', message: `credential '${principal}' does not reach ${scope}` };
}

/** 404 not_found from a door: anything but POST / and GET of the card (seed 000, step 5). */
export function doorNotFoundRefusal(): HttpRefusalBody<'not_found'> {
  return {
    error: 'not_found',
    message: 'this door answers POST / with content-type: application/json and a JSON-RPC body, and GET /.well-known/agent-card.json',
  };
}

/** The two planes of seed 000 ("Planes"), as the card names them. */
export type PlaneName = 'files' | 'peer_files';

const PLANES: Readonly<Record<PlaneName, { words: string; path: string; declaration: string }>> = {
  files: { words: 'the operator plane', path: '/resources/files', declaration: 'exports.files' },
  peer_files: { words: 'the peer plane', path: '/resources/peer', declaration: 'exports.peer_files' },
};

/** 404 plane_not_served: an undeclared plane refuses every request; a declared one is not served yet. */
export function planeNotServedRefusal(plane: PlaneName, declared: boolean): HttpRefusalBody<'plane_not_served'> {
  const { words, path, declaration } = PLANES[plane];
  return {
    error: 'plane_not_served',
    message: declared
      ? `${words} at ${path} is declared (${declaration}) but this runtime does not serve planes yet`
      : `this capsule does not declare ${declaration}, so ${words} at ${path} serves nothing`,
  };
}

/**
 * 404 file_not_found: byte-identical for every path of the operator plane that it refuses (absent, an escape in any
 * encoding, a link out of the root, a folder without its slash), so a probe learns nothing (docs/planes.md).
 */
export function fileNotFoundRefusal(): HttpRefusalBody<'file_not_found'> {
  return { error: 'file_not_found', message: 'nothing is served at this path of the operator plane' };
}

/** 405 method_not_allowed: a plane answers GET and HEAD only. */
/** 404 handle_not_found: byte-identical for every handle the peer plane refuses, whatever the reason (docs/planes.md). */
export function handleNotFoundRefusal(): HttpRefusalBody<'handle_not_found'> {
  return { error: 'handle_not_found', message: 'no file is shared under this handle for this audience' };
}

export function methodNotAllowedRefusal(method: string): HttpRefusalBody<'method_not_allowed'> {
  return { error: 'method_not_allowed', message: `the planes answer GET and HEAD, not ${method}` };
}

/** 416 range_not_satisfiable: the range starts at or past the end of a file of `size` bytes. */
export function rangeNotSatisfiableRefusal(size: number): HttpRefusalBody<'range_not_satisfiable'> {
  return { error: 'range_not_satisfiable', message: `the range starts at or past the end of this file of ${size} bytes` };
}

// --- mur console ----------------------------------------------------------------------------------------------

/** 404 not_found from mur console: an /api path it does not serve. */
export function consoleNotFoundRefusal(url: string): HttpRefusalBody<'not_found'> {
  return { error: 'not_found', message: `no console API at ${url}` };
}

/** 404 not_found on a door's record plane or mur console's record API: no such path, session or task (docs/console.md). */
export function recordNotFoundRefusal(path: string): HttpRefusalBody<'not_found'> {
  return { error: 'not_found', message: `no record at ${path}` };
}

/** 400 invalid_request: a record query's paging or filter parameter out of its range; `why` names it (docs/console.md). */
export function recordQueryRefusal(why: string): HttpRefusalBody<'invalid_request'> {
  return { error: 'invalid_request', message: why };
}

/** 404 not_found: Ask again names a door the running-now watch does not watch. `key` is host:port. */
export function runningDoorNotFoundRefusal(key: string): HttpRefusalBody<'not_found'> {
  return { error: 'not_found', message: `the running-now page watches no door ${key}` };
}

/** 400 bad_address: the proxy path does not name host:port. */
export function badAddressRefusal(): HttpRefusalBody<'bad_address'> {
  return { error: 'bad_address', message: 'the door address must be host:port, such as 127.0.0.1:41873' };
}

/** 403 not_loopback: the proxy reaches loopback doors only. */
export function notLoopbackRefusal(host: string): HttpRefusalBody<'not_loopback'> {
  return { error: 'not_loopback', message: `the console only reaches doors on this machine's loopback, not ${host}` };
}

/**
 * 421 misdirected: mur console answers a request addressed to it by an IP address, `localhost` or the name its --host
 * gave, so that a page of another site whose name was made to resolve to this machine (DNS rebinding) reads nothing.
 */
export function misdirectedRefusal(host: string): HttpRefusalBody<'misdirected'> {
  return {
    error: 'misdirected',
    message: `mur console answers requests addressed to this machine by an IP address or localhost (or its --host), not to ${host}`,
  };
}

/**
 * 403 not_loopback, for the peer: mur console's record and formation APIs read this machine's files, so they answer a
 * loopback peer only, whatever address the console listens on. `peer` is the peer's address.
 */
export function notLoopbackPeerRefusal(peer: string): HttpRefusalBody<'not_loopback'> {
  return { error: 'not_loopback', message: `mur console reads this machine's records and formations for a loopback peer only, not for ${peer}` };
}

/** 502 door_unreachable: the proxy's connection to the door failed before any answer. `address` is host:port. */
export function doorUnreachableRefusal(address: string, cause: string): HttpRefusalBody<'door_unreachable'> {
  return { error: 'door_unreachable', message: `cannot reach the door at ${address}: ${cause}` };
}
