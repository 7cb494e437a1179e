/**
 * One retry predicate and one back-off for every request and every stream reconnect, in the shape of openai-node's
 * (STYLE 7): exponential back-off with jitter, `Retry-After` honoured up to a cap.
 */
import { isA2AError, isConnectionError, isHttpRefusalError } from '../errors.js';

export interface BackoffPolicy {
  /** @unit ms */
  initialDelayMs: number;
  /** @unit ms */
  maxDelayMs: number;
}

/** A `Retry-After` longer than this is not waited for; the back-off is used instead (openai-node caps at 60 s too). */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * The wait before retry number `attempt` (1-based): `initialDelayMs · 2^(attempt-1)`, capped at `maxDelayMs`, less
 * up to 25 % jitter so that clients dropped together do not come back together.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - 0.25 * random()));
}

/** A `Retry-After` header (delta-seconds or an HTTP date, RFC 9110 §10.2.3) as ms, or null when absent, invalid or over the cap. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return null;
    ms = date - now;
  }
  return ms >= 0 && ms <= RETRY_AFTER_CAP_MS ? ms : null;
}

/** The wait before retry number `attempt` after `failure`: its Retry-After when it has a usable one, else the back-off. */
export function retryDelay(attempt: number, policy: BackoffPolicy, failure: unknown, random?: () => number): number {
  const header = isHttpRefusalError(failure) ? failure.retryAfter : null;
  return retryAfterMs(header) ?? backoffDelay(attempt, policy, random);
}

/**
 * Whether a failed request may be sent again. `idempotent` requests (reads) are retried on anything that may be
 * transient; the others only where the door cannot have acted on them:
 * - an A2A error whose table row says retryable (-32603: accepted, but not handed to the session);
 * - HTTP 429 and 503 ("not now");
 * - for idempotent requests also: connection failures and HTTP 408, 500, 502 and 504, after which a SendMessage
 *   may well have started a task (the door does not de-duplicate on messageId), so it is not repeated.
 */
export function shouldRetry(failure: unknown, idempotent: boolean): boolean {
  if (isA2AError(failure)) return failure.retryable;
  if (isHttpRefusalError(failure)) return failure.status === 429 || failure.status === 503 || (idempotent && failure.retryable);
  if (isConnectionError(failure)) return idempotent;
  return false;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
