/**
 * The one performance figure the console exposes, for the 2,000 frames/s check: the session view's timeline
 * batching updates `window.__murmurConsole`. A test reads it with `page.evaluate(() => window.__murmurConsole)`.
 */
export interface PerfCounters {
  /** Stream events the session timeline took in (every data event: statuses, artifacts, murmur frames). */
  framesReceived: number;
  /** Of those, how many have been applied and written to the page (DOM updated) by a flush. */
  framesRendered: number;
  /** The last flush: applying its batch, writing the state and updating the DOM. @unit ms */
  lastBatchMs: number;
  /** The slowest flush since the counters were made. @unit ms */
  maxBatchMs: number;
  /** Flushes so far: at most one per animation frame. */
  batches: number;
}

declare global {
  interface Window {
    __murmurConsole?: PerfCounters;
  }
}

export function newPerfCounters(): PerfCounters {
  return { framesReceived: 0, framesRendered: 0, lastBatchMs: 0, maxBatchMs: 0, batches: 0 };
}

/** Fresh counters on `window.__murmurConsole` (one session view at a time owns them). */
export function installPerfCounters(win: Window | undefined = typeof window === 'undefined' ? undefined : window): PerfCounters {
  const counters = newPerfCounters();
  if (win) win.__murmurConsole = counters;
  return counters;
}
