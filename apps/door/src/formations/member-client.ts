import type { MurmurClient } from '@murmur/client';
import type { Task } from '@murmur/protocol';
import { doorClient, peerTaskHeaders, statusText, unanswered } from '../egress/door-call.js';
import { boundedRequest, failureInWords, OutboundTimeout } from '../egress/outbound-request.js';
import type { MemberLink } from '../seat/formation-seat.js';
import type { OutboundA2a } from '../telemetry/trace-context.js';
import { tracedFetch } from '../telemetry/traced-fetch.js';

/** How long one poll of a member's task may take before it counts as a read that got no answer. */
const READ_TIMEOUT_MS = 2_000;
/**
 * How long one offer may take before it counts as an offer that got no answer, while the calling task runs; once it
 * has ended, the ending's own wait (ENDING_WAIT_MS, member-call-run.ts) bounds an offer on its way instead.
 */
export const OFFER_TIMEOUT_MS = 5_000;

/** The exact status message of a door with no room (seed 000, "A SendMessage the door has no room for"). */
const BUSY_MESSAGE = 'task rejected: capsule is busy';

export type OfferAnswer =
  | { kind: 'taken'; task: Task }
  | { kind: 'busy' }
  | { kind: 'rejected'; message: string | null }
  | { kind: 'failed'; why: string }
  /** No HTTP answer: the door is not there, or did not answer in time. */
  | { kind: 'no-answer'; why: string };

export type ReadAnswer = { kind: 'task'; task: Task } | { kind: 'failed'; why: string } | { kind: 'no-answer'; why: string };

/**
 * The outbound A2A caller to one member's door (docs/formations.md, "The outbound caller"): one call to another door
 * (egress/door-call.ts) with the member token and the runtime headers `x-murmur-task-origin: peer` and the calling
 * task's `x-murmur-task-trust`.
 */
export class MemberDoor {
  private readonly client: MurmurClient;

  /**
   * `outbound`: the calling task's client spans (telemetry/, null when off): every request gets an `a2a.client` span
   * whose traceparent it carries, so the member's server span is that span's child.
   */
  constructor(link: MemberLink, trust: 'trusted' | 'untrusted', outbound: OutboundA2a | null = null) {
    this.client = doorClient({ url: link.url, token: link.token, headers: peerTaskHeaders(trust), traced: (fetch) => tracedFetch(outbound, fetch) });
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
      return {
        kind: 'task',
        task: await boundedRequest((bounded) => this.client.getTask(taskId, { signal: bounded }), { timeoutMs: READ_TIMEOUT_MS, signal }),
      };
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
