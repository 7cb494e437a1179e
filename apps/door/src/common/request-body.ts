/**
 * Request bodies read within bounds: a byte semaphore that says how many bytes of bodies are read and parsed at once
 * (docs/reliability.md, "Request bodies wait for the intake budget"), and the reader that keeps to a limit and drops a
 * stalled sender. The door's JSON-RPC routes and fast lane use both (rpc/intake-budget.ts holds their budgets), and so
 * does a harness run's tool server (agent/harness/tool-server.ts).
 */

/** The answer of `readBody` for a body over its limit, which was read and dropped. */
export const TOO_LARGE = Symbol('body too large');

/** A reserved body that receives no byte for this long is dropped, so a stalled sender cannot keep its reservation. */
const INTAKE_STALL_MS = 30_000;

interface Waiter {
  bytes: number;
  grant: (release: () => void) => void;
  cancelled: boolean;
}

/** A byte semaphore, first come first served: a large body is not overtaken by later ones forever. */
export class IntakeBudget {
  private held = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly budgetBytes: number) {}

  get heldBytes(): number {
    return this.held;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Reserves `bytes` (capped at the budget, so any body the limit admits gets in alone): `grant` is called with the
   * release at once when there is room and nobody waits ahead, else once there is. Returns a cancel for a waiter
   * whose request went away before it was granted.
   */
  reserve(bytes: number, grant: (release: () => void) => void): { waited: boolean; cancel: () => void } {
    const waiter: Waiter = { bytes: Math.min(bytes, this.budgetBytes), grant, cancelled: false };
    this.waiters.push(waiter);
    const waited = !this.grantWaiting().includes(waiter);
    return {
      waited,
      cancel: () => {
        if (waiter.cancelled) return;
        waiter.cancelled = true;
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        this.grantWaiting();
      },
    };
  }

  /** Reserves `bytes` only when that needs no wait (room, nobody ahead): the release, else null and nothing held. */
  tryReserve(bytes: number): (() => void) | null {
    if (this.waiters.length > 0 || this.held + Math.min(bytes, this.budgetBytes) > this.budgetBytes) return null;
    let release: (() => void) | null = null;
    this.reserve(bytes, (granted) => {
      release = granted;
    });
    return release;
  }

  private grantWaiting(): Waiter[] {
    const granted: Waiter[] = [];
    while (this.waiters.length > 0 && this.held + this.waiters[0].bytes <= this.budgetBytes) {
      const waiter = this.waiters.shift()!;
      this.held += waiter.bytes;
      granted.push(waiter);
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        this.held -= waiter.bytes;
        this.grantWaiting();
      });
    }
    return granted;
  }
}

/**
 * Reads a body into one string: into a buffer of its declared length (one copy, not a list of chunks and their
 * concatenation), or chunk by chunk when it names none. A body over the limit is read and dropped (TOO_LARGE); one
 * that receives nothing for INTAKE_STALL_MS is destroyed, so a stalled sender gives its reservation back.
 */
export function readBody(
  payload: NodeJS.ReadableStream & { destroy(error?: Error): void },
  declared: number | null,
  limit: number,
  release: () => void,
  done: (error: Error | null, body?: unknown) => void,
): void {
  const into = declared !== null && declared <= limit ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  const stall = setTimeout(() => payload.destroy(new Error('request body stalled')), INTAKE_STALL_MS).unref();
  let finished = false;
  const finish = (error: Error | null, body?: unknown) => {
    if (finished) return;
    finished = true;
    clearTimeout(stall);
    if (error || body === TOO_LARGE) release();
    done(error, body);
  };
  payload.on('data', (chunk: Buffer) => {
    stall.refresh();
    const at = size;
    size += chunk.length;
    if (size > limit) return;
    if (into) chunk.copy(into, at);
    else chunks.push(chunk);
  });
  payload.on('end', () => {
    if (size > limit) return finish(null, TOO_LARGE);
    finish(null, (into ? into.subarray(0, size) : Buffer.concat(chunks)).toString('utf8'));
  });
  payload.on('error', (error) => finish(error as Error));
}
