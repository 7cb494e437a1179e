import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits `ms`, or rejects at once when the signal aborts (a cancel ends a sleep immediately): the one abortable wait of
 * the agent's drivers and of the formations' member calls (formations/clock.ts).
 */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal });
}
