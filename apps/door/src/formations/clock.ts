import { abortableDelay } from '../egress/abortable-delay.js';

/** The time the member calls read: offers' back-off, polls and deadlines. Injected, so tests can drive it. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects once the signal aborts (at once when it already has). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Up to 250 ms of jitter on a busy member's re-offers (seed 004, "A busy member"). */
  jitterMs(): number;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => abortableDelay(ms, signal),
  jitterMs: () => Math.floor(Math.random() * 251),
};
