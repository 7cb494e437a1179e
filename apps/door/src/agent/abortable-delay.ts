import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms`, or rejects at once when the signal aborts (a cancel ends a sleep immediately). */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal });
}
