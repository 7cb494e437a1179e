/**
 * The one retry policy of the provider drivers (docs/drivers.md, "The retry policy"; the openai-node shape): one
 * predicate, exponential back-off with jitter, and Retry-After honoured up to a cap.
 */
import type { ProviderFailure } from './provider-failure.js';

/** @unit ms */
const INITIAL_DELAY_MS = 500;
/** @unit ms */
const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited for; the back-off is used instead. @unit ms */
export const RETRY_AFTER_CAP_MS = 60_000;

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;
const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'server_error']);

/**
 * Whether another attempt may help. The caller has already ruled out an attempt that streamed a chunk (its frames are
 * on the wire) and a cancel. The provider's `x-should-retry` header, when present, decides.
 */
export function shouldRetry(failure: ProviderFailure): boolean {
  const hint = failure.details.headers?.get('x-should-retry');
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  switch (failure.kind) {
    case 'http':
      return RETRYABLE_STATUS(failure.details.status ?? 0);
    case 'connect':
    case 'stall':
    case 'closed':
      return true;
    case 'stream-error':
      return RETRYABLE_STREAM_ERRORS.has(failure.details.errorType ?? '');
    case 'malformed':
    case 'arguments':
      return false;
    default: {
      const unreachable: never = failure.kind;
      throw new Error(`unknown failure kind ${String(unreachable)}`);
    }
  }
}

/** Retry-After as milliseconds: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfterMs(headers: Headers | undefined, now: number): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number.parseFloat(ms))) return Number.parseFloat(ms);
  const value = headers.get('retry-after');
  if (value === null) return null;
  const secs = Number(value);
  if (value.trim() !== '' && Number.isFinite(secs)) return secs * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : date - now;
}

/** How long to wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed. */
export function retryDelayMs(attempt: number, failure: ProviderFailure, random: () => number = Math.random, now = Date.now()): number {
  const asked = retryAfterMs(failure.details.headers, now);
  if (asked !== null && asked >= 0 && asked <= RETRY_AFTER_CAP_MS) return Math.round(asked);
  const backoff = Math.min(INITIAL_DELAY_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  return Math.round(backoff * (1 - random() * 0.25));
}
