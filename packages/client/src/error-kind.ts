/**
 * One stable name for whatever a call or a stream threw, so every front end (the `mur` CLI, the console, an
 * integrator's logs) tells failures apart the same way before putting them into its own words.
 */
import { isA2AError, isConnectionError, isHttpRefusalError, isInvalidResponseError, isStreamError } from './errors.js';

export const ERROR_KINDS = [
  /** A2AError: the door answered a JSON-RPC error (code, reason, metadata). */
  'a2a',
  /** HttpRefusalError: a 401/403/404 refusal body, or another non-2xx answer from the door or a proxy. */
  'http-refusal',
  /** ConnectionError: no HTTP answer at all. */
  'connection',
  /** InvalidResponseError: an answer this client cannot read. */
  'invalid-response',
  /** StreamError: a stream failed after it opened (or was misused); see its `reason`. */
  'stream',
  /** The caller's AbortSignal fired (an AbortError). */
  'aborted',
  /** A deadline passed: `AbortSignal.timeout()`'s TimeoutError. */
  'timeout',
  /** Anything else. */
  'unknown',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * The kind of a thrown value. Reads the client errors' `Symbol.for` brand (so it holds across bundles and
 * duplicated installs) and the `name` of DOMException-style abort and timeout errors.
 */
export function errorKind(error: unknown): ErrorKind {
  if (isA2AError(error)) return 'a2a';
  if (isHttpRefusalError(error)) return 'http-refusal';
  if (isConnectionError(error)) return 'connection';
  if (isInvalidResponseError(error)) return 'invalid-response';
  if (isStreamError(error)) return 'stream';
  const name = typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string' ? (error as { name: string }).name : '';
  if (name === 'AbortError') return 'aborted';
  if (name === 'TimeoutError') return 'timeout';
  return 'unknown';
}
