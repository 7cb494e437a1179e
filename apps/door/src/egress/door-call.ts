import { errorKind, type FetchLike, MurmurClient } from '@murmur/client';
import { COMPLETION_SESSION_HEADER, DELEGATION_ID_HEADER, partsText, TASK_ORIGIN_HEADER, TASK_TRUST_HEADER, type Task } from '@murmur/protocol';
import { failureInWords, withoutAddresses } from './outbound-request.js';

/**
 * One call to another door: a formation member's offers, reads and cancels (docs/formations.md, "The outbound
 * caller"), a plan's capsule step (docs/plans.md), a delegation's completion (docs/formations.md, "Delegation"). Each
 * request of it is bounded by the caller (outbound-request.ts's `boundedRequest`).
 */
export interface DoorCall {
  /** The other door's address. */
  url: string;
  /** Its token, where the door asks for one. */
  token?: string | null;
  /** The runtime headers the call carries (seed 000, "Runtime headers"): `peerTaskHeaders` or `completionHeaders`. */
  headers: Readonly<Record<string, string>>;
  /** Wraps the fetch so each request gets its a2a.client span and carries its traceparent (outbound-tracing.ts); itself when telemetry is off. */
  traced: (fetch: FetchLike) => FetchLike;
}

/**
 * The client of one call to another door, on @murmur/client (which sends A2A-Version 1.0 itself), with no client
 * retries: an offer the door may have taken is never sent twice (the runtime re-offers on its own).
 */
export function doorClient(call: DoorCall): MurmurClient {
  const fetch: FetchLike = (input, init) => globalThis.fetch(input, init);
  return new MurmurClient(call.url, {
    ...(call.token == null ? {} : { token: call.token }),
    headers: call.headers,
    fetch: call.traced(fetch),
    retry: { maxRetries: 0 },
  });
}

/** A task sent on a task's behalf to a peer's door: `x-murmur-task-origin: peer` and the calling task's trust class. */
export function peerTaskHeaders(trust: 'trusted' | 'untrusted'): Record<string, string> {
  return { [TASK_ORIGIN_HEADER]: 'peer', [TASK_TRUST_HEADER]: trust };
}

/** A delegated sub-capsule's completion to the session that delegated to it. */
export function completionHeaders(delegationId: string, parentSession: string): Record<string, string> {
  return { [TASK_ORIGIN_HEADER]: 'completion', [DELEGATION_ID_HEADER]: delegationId, [COMPLETION_SESSION_HEADER]: parentSession };
}

/** The other door's task's status message text, or null. */
export function statusText(task: Task): string | null {
  const parts = task.status.message?.parts;
  return parts && parts.length > 0 ? partsText(parts) : null;
}

/**
 * A request that got no answer, or an answer that is an error, as the model may read it: a connection's failure in
 * words that name no address (`the connection was refused`); a door's own error message with any address or token in
 * it withheld.
 */
export function unanswered(error: unknown): { kind: 'failed' | 'no-answer'; why: string } {
  const kind = errorKind(error);
  if (kind === 'connection' || kind === 'timeout') return { kind: 'no-answer', why: failureInWords(error) };
  return { kind: 'failed', why: withoutAddresses(error instanceof Error ? error.message : String(error)) };
}
