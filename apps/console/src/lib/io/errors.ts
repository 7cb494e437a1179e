/**
 * The console's one error mapping (STYLE 14, "one handleError"): every failure a view shows goes through
 * describeError, which turns the client's typed errors into words an operator understands. It switches on the
 * client's errorKind, which reads the errors' `Symbol.for` brand, so it holds across bundles (STYLE 2).
 */
import { type A2AError, errorKind, type HttpRefusalError, type InvalidResponseError, type StreamError } from '@murmur/client';
import { HTTP_REFUSALS } from '@murmur/protocol';

type ProblemKind =
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

/** A request the console did not send: the door is held (door-hold.ts) for the problem it carries. */
export class HeldRequest extends Error {
  override name = 'HeldRequest';
  constructor(readonly problem: Problem) {
    super(problem.title);
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
  return errorKind(error) === 'aborted';
}

export function describeError(error: unknown, context: ErrorContext = {}): Problem {
  const door = context.door ? `the door at ${context.door}` : 'the door';
  if (error instanceof HeldRequest) return error.problem;
  if (error instanceof ConsoleApiError)
    return problem('api', error.status === 403 ? 'mur console refused' : 'mur console did not answer', error.message, error.status);
  const kind = errorKind(error);
  switch (kind) {
    case 'http-refusal':
      return describeRefusal(error as HttpRefusalError, door);
    case 'connection':
      return problem('unreachable', `Cannot reach ${door}`, 'No answer: is mur console still running, and is the session up?');
    case 'a2a': {
      const a2a = error as A2AError;
      const detail = [
        a2a.reason,
        Object.entries(a2a.metadata)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', '),
      ]
        .filter(Boolean)
        .join(' — ');
      return problem('a2a', a2a.message, detail || null, a2a.code);
    }
    case 'stream': {
      const stream = error as StreamError;
      // A refused reconnect carries the refusal: a token gone stale reads as a token problem, not a stream one.
      if (stream.reason === 'reconnect-refused' && stream.cause !== undefined) return describeError(stream.cause, context);
      if (stream.reason === 'retries-exhausted' || stream.reason === 'connection-lost' || stream.reason === 'heartbeat-timeout') {
        const cause = stream.cause === undefined || stream.cause === null ? null : describeError(stream.cause, context);
        return problem('stream', `Lost the stream from ${door}`, cause ? `${cause.title}${cause.detail ? `: ${cause.detail}` : ''}` : stream.message);
      }
      return problem('stream', `The stream from ${door} failed`, stream.message);
    }
    case 'invalid-response': {
      const invalid = error as InvalidResponseError;
      return problem('invalid-response', `Could not read the answer of ${door}`, invalid.message, invalid.status);
    }
    case 'aborted':
    case 'timeout':
    case 'unknown':
      if (error instanceof Error) return problem('unknown', error.message || error.name, null);
      return problem('unknown', String(error), null);
    default: {
      const unreachable: never = kind;
      throw new TypeError(`unknown error kind ${String(unreachable)}`);
    }
  }
}

function describeRefusal(error: HttpRefusalError, door: string): Problem {
  if (error.status === 401) {
    return problem('needs-token', 'This door needs a token', error.message, 401);
  }
  // mur console's proxy refuses an address it will not reach (apps/door/src/console/door-proxy.ts).
  if (error.code === HTTP_REFUSALS.not_loopback.code || error.code === HTTP_REFUSALS.bad_address.code) {
    return problem('refused', 'mur console will not reach this address', error.message, error.status);
  }
  if (error.status === 403) {
    if (error.code === HTTP_REFUSALS.insufficient_scope.code) return problem('forbidden', 'This token may not do that', error.message, 403);
    if (error.code === HTTP_REFUSALS.peer_not_accepted.code)
      return problem('forbidden', `${capitalize(door)} does not accept requests from peers`, error.message, 403);
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

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
