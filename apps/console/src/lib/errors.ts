/**
 * The console's one error mapping (STYLE 14, "one handleError"): every failure a view shows goes through
 * describeError, which turns the client's typed errors into words an operator understands. The guards read the
 * client's `Symbol.for` brand, so they hold across bundles (STYLE 2).
 */
import { isA2AError, isConnectionError, isHttpRefusalError, isInvalidResponseError, isStreamError } from '@murmur/client';
import { HTTP_REFUSALS } from '@murmur/protocol';

export type ProblemKind =
  /** 401: the door wants a bearer token (or refused the one given). */
  | 'needs-token'
  /** 403: the token lacks a scope, or the door refuses the request. */
  | 'forbidden'
  /** No answer, or the proxy could not reach the door (502/503/504). */
  | 'unreachable'
  /** The door answered a JSON-RPC/A2A error. */
  | 'a2a'
  /** Another HTTP refusal (404, 400 from the proxy…). */
  | 'refused'
  /** An answer the client could not read. */
  | 'invalid-response'
  /** A stream that failed after it opened. */
  | 'stream'
  /** The console's own API (`/api/sessions`) failed. */
  | 'api'
  | 'unknown';

/** A failure as a view shows it: a title in plain words, a detail line, and what the operator can do about it. */
export interface Problem {
  kind: ProblemKind;
  title: string;
  detail: string | null;
  /** Whether a token would help: show the token prompt. */
  needsToken: boolean;
  /** The JSON-RPC code (A2A errors) or HTTP status, for the curious. */
  code: number | null;
}

/** Where the failure happened, to name it in the words. */
export interface ErrorContext {
  /** The door's `host:port`. */
  door?: string;
}

/** `/api/sessions` and other console endpoints answer with this when they fail. */
export class ConsoleApiError extends Error {
  override name = 'ConsoleApiError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const problem = (kind: ProblemKind, title: string, detail: string | null, code: number | null = null): Problem => ({
  kind,
  title,
  detail: detail === '' ? null : detail,
  needsToken: kind === 'needs-token',
  code,
});

/** An abort the console caused itself (navigating away, closing a stream): not a failure to show. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException ? error.name === 'AbortError' : error instanceof Error && error.name === 'AbortError';
}

export function describeError(error: unknown, context: ErrorContext = {}): Problem {
  const door = context.door ? `the door at ${context.door}` : 'the door';
  if (isHttpRefusalError(error)) {
    if (error.status === 401) {
      return problem('needs-token', 'This door needs a token', error.message, 401);
    }
    // mur console's proxy refuses an address it will not reach (apps/door/src/console/door-proxy.ts).
    if (error.code === HTTP_REFUSALS.not_loopback.code || error.code === HTTP_REFUSALS.bad_address.code) {
      return problem('refused', 'mur console will not reach this address', error.message, error.status);
    }
    if (error.status === 403) {
      if (error.code === HTTP_REFUSALS.insufficient_scope.code) return problem('forbidden', 'This token may not do that', error.message, 403);
      if (error.code === HTTP_REFUSALS.peer_not_accepted.code) return problem('forbidden', `${capitalize(door)} does not accept requests from peers`, error.message, 403);
      return problem('forbidden', `Refused: ${error.message}`, null, 403);
    }
    // mur console's proxy answers door_unreachable when it cannot reach the door (door down, port closed); a door
    // itself never answers 502/503/504, so those come from a proxy in between.
    if (error.code === HTTP_REFUSALS.door_unreachable.code || error.status === 502 || error.status === 503 || error.status === 504) {
      // mur console words it "cannot reach the door at host:port: <cause>": keep the cause, not the repeat.
      return problem('unreachable', `Cannot reach ${door}`, error.message.replace(/^cannot reach the door at \S+: /i, ''), error.status);
    }
    return problem('refused', `${capitalize(door)} refused the request (HTTP ${error.status})`, error.message, error.status);
  }
  if (isConnectionError(error)) {
    return problem('unreachable', `Cannot reach ${door}`, 'No answer: is mur console still running, and is the session up?');
  }
  if (isA2AError(error)) {
    const detail = [error.reason, Object.entries(error.metadata).map(([k, v]) => `${k}: ${v}`).join(', ')].filter(Boolean).join(' — ');
    return problem('a2a', error.message, detail || null, error.code);
  }
  if (isStreamError(error)) {
    // A refused reconnect carries the refusal: a token gone stale reads as a token problem, not a stream one.
    if (error.reason === 'reconnect-refused' && error.cause !== undefined) return describeError(error.cause, context);
    if (error.reason === 'retries-exhausted' || error.reason === 'connection-lost' || error.reason === 'heartbeat-timeout') {
      const cause = error.cause === undefined || error.cause === null ? null : describeError(error.cause, context);
      return problem('stream', `Lost the stream from ${door}`, cause ? `${cause.title}${cause.detail ? `: ${cause.detail}` : ''}` : error.message);
    }
    return problem('stream', `The stream from ${door} failed`, error.message);
  }
  if (isInvalidResponseError(error)) {
    return problem('invalid-response', `Could not read the answer of ${door}`, error.message, error.status);
  }
  if (error instanceof ConsoleApiError) {
    return problem('api', 'mur console did not answer', error.message, error.status);
  }
  if (error instanceof Error) return problem('unknown', error.message || error.name, null);
  return problem('unknown', String(error), null);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
