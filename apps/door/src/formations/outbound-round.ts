/**
 * Waiting for a round of a task's outbound work — the member calls it made (member-calls.ts), the sub-capsules it
 * delegated to (delegations.ts) — before its continuation: one wait for both.
 */

/** The wake-ups of one task's outbound work: each piece that ends calls wake(), and a waiting round looks again. */
export class Wakeups {
  private readonly waiters = new Set<() => void>();

  wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves at the next wake(), or rejects with the signal's reason once it aborts. */
  next(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters.delete(done);
        reject(signal.reason);
      };
      this.waiters.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * Waits until none of a round is outstanding, each wake-up counting again: the status says how many are left when
 * the wait begins and whenever the count changes, never once none is. Rejects with the signal's reason once it aborts.
 */
export async function awaitOutstanding(
  outstanding: () => number,
  wakeups: Wakeups,
  signal: AbortSignal,
  onStatus: (text: string) => void,
  statusOf: (left: number) => string,
): Promise<void> {
  let left = outstanding();
  if (left > 0) onStatus(statusOf(left));
  while (left > 0) {
    await wakeups.next(signal);
    const now = outstanding();
    if (now > 0 && now !== left) onStatus(statusOf(now));
    left = now;
  }
}
