import { errorKind, type FetchLike, MurmurClient } from '@murmur/client';
import { A2A_VERSION, A2A_VERSION_HEADER, isTerminalState, partsText, TASK_ORIGIN_HEADER, TASK_TRUST_HEADER, type Task } from '@murmur/protocol';
import { boundedRequest, failureInWords, OutboundTimeout, withoutAddresses } from '../egress/outbound-request.js';
import type { MemberLink } from '../seat/formation-seat.js';
import type { OutboundA2a } from '../telemetry/trace-context.js';
import { tracedFetch } from '../telemetry/traced-fetch.js';

/** How long one poll of a member's task may take before it counts as a read that got no answer. */
export const READ_TIMEOUT_MS = 2_000;
/**
 * How long one offer may take before it counts as an offer that got no answer, while the calling task runs; once it
 * has ended, the ending's own wait (ENDING_WAIT_MS, member-call-run.ts) bounds an offer on its way instead.
 */
export const OFFER_TIMEOUT_MS = 5_000;

/** The exact status message of a door with no room (seed 000, "A SendMessage the door has no room for"). */
export const BUSY_MESSAGE = 'task rejected: capsule is busy';

export type OfferAnswer =
  | { kind: 'taken'; task: Task }
  | { kind: 'busy' }
  | { kind: 'rejected'; message: string | null }
  | { kind: 'failed'; why: string }
  /** No HTTP answer: the door is not there, or did not answer in time. */
  | { kind: 'no-answer'; why: string };

export type ReadAnswer = { kind: 'task'; task: Task } | { kind: 'failed'; why: string } | { kind: 'no-answer'; why: string };

/** A task's status message text, or null. */
export function statusText(task: Task): string | null {
  const parts = task.status.message?.parts;
  return parts && parts.length > 0 ? partsText(parts) : null;
}

/**
 * The outbound A2A caller to one member's door (docs/formations.md, "The outbound caller"), on @murmur/client: the
 * member token, A2A-Version 1.0, and the runtime headers `x-murmur-task-origin: peer` and the calling task's
 * `x-murmur-task-trust`, stamped by a wrapping fetch on every request.
 */
export class MemberDoor {
  private readonly client: MurmurClient;

  /**
   * `outbound`: the calling task's client spans (telemetry/, null when off): every request gets an `a2a.client` span
   * whose traceparent it carries, so the member's server span is that span's child.
   */
  constructor(link: MemberLink, trust: 'trusted' | 'untrusted', outbound: OutboundA2a | null = null) {
    const stamped: FetchLike = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set(A2A_VERSION_HEADER, A2A_VERSION);
      headers.set(TASK_ORIGIN_HEADER, 'peer');
      headers.set(TASK_TRUST_HEADER, trust);
      return globalThis.fetch(input, { ...init, headers });
    };
    // No client retries: an offer the door may have taken is never sent twice (the runtime re-offers on its own).
    this.client = new MurmurClient(link.url, { token: link.token, fetch: tracedFetch(outbound, stamped), retry: { maxRetries: 0 } });
  }

  /**
   * One offer; once `giveUp` aborts (its caller's timeout, member-call-run.ts), it is an offer that got no answer. The
   * request is raced against `giveUp`, so an abort `fetch` lost cannot hold the offer (egress/outbound-request.ts).
   */
  async offer(text: string, giveUp: AbortSignal): Promise<OfferAnswer> {
    try {
      const task = await boundedRequest((signal) => this.client.sendText(text, { returnImmediately: true, signal }), { signal: giveUp });
      if (task.status.state === 'TASK_STATE_REJECTED') {
        const message = statusText(task);
        return message === BUSY_MESSAGE ? { kind: 'busy' } : { kind: 'rejected', message };
      }
      return { kind: 'taken', task };
    } catch (error) {
      return giveUp.aborted ? { kind: 'no-answer', why: failureInWords(giveUp.reason) } : unanswered(error);
    }
  }

  async read(taskId: string, signal: AbortSignal): Promise<ReadAnswer> {
    try {
      return { kind: 'task', task: await boundedRequest((bounded) => this.client.getTask(taskId, { signal: bounded }), { timeoutMs: READ_TIMEOUT_MS, signal }) };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return unanswered(error);
    }
  }

  /** The one cancel the runtime sends: a task the member took just after the calling task ended. */
  async cancel(taskId: string): Promise<void> {
    await boundedRequest((signal) => this.client.cancelTask(taskId, { signal }), { timeoutMs: READ_TIMEOUT_MS }).catch(() => undefined);
  }
}

/** The reason an offer given up on reads as: a TimeoutError after the offer's 5 s. */
export function offerTimedOut(): OutboundTimeout {
  return new OutboundTimeout(OFFER_TIMEOUT_MS);
}

/**
 * A request that got no answer, or an answer that is an error, as the model may read it: a connection's failure in
 * words that name the member only (`the connection was refused`), never the door's address; a door's own error
 * message with any address or token in it withheld.
 */
function unanswered(error: unknown): { kind: 'failed' | 'no-answer'; why: string } {
  const kind = errorKind(error);
  if (kind === 'connection' || kind === 'timeout') return { kind: 'no-answer', why: failureInWords(error) };
  return { kind: 'failed', why: withoutAddresses(error instanceof Error ? error.message : String(error)) };
}

export { isTerminalState };
