import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits `ms`, or rejects at once when the signal aborts (a cancel ends a sleep immediately): the one abortable wait
 * between the runtime's outbound requests — a provider call's retry, a member's re-offer and poll (formations/clock.ts),
 * a plan's capsule step's poll — and of the script driver's sleeps, which stand in for a provider's.
 */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal });
}
