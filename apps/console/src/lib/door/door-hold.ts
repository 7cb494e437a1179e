/**
 * When a door has said it needs a token, or could not be reached, the console stops asking it (docs/console.md,
 * "Asking a door again"): every request through the held client is answered here, without a request, with the
 * problem the door gave — until the operator acts (a click or a form submitted after the hold began), a new token, or,
 * for an unreachable door, the back-off's next step. A door needing a token is still asked for its public card.
 */
import { UNREACHABLE_BACKOFF_MS } from '@murmur/protocol';
import type { DoorClient } from './door-client.js';
import { HeldRequest, type Problem } from '../io/errors.js';

/** The waits before asking an unreachable door again: then every minute (shared with mur console's running-now watch). */
export { UNREACHABLE_BACKOFF_MS };

const STREAMS: ReadonlySet<PropertyKey> = new Set(['watchSession', 'subscribeToTask']);
/** What a door serves without a token. */
const TOKEN_FREE: ReadonlySet<PropertyKey> = new Set(['getCard']);

export class DoorHold {
  #problem: Problem | null = null;
  #heldAt = 0;
  #actedAt = Number.NEGATIVE_INFINITY;
  #step = 0;
  #retryAt: number | null = null;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The problem the door is held for, or null. */
  get problem(): Problem | null {
    return this.#problem;
  }

  /** When an unreachable door is asked again (ms), or null. */
  get retryAt(): number | null {
    return this.#retryAt;
  }

  /** The door answered 401, or could not be reached: hold it. Anything else does not hold. */
  hold(problem: Problem): void {
    if (problem === this.#problem || (!problem.needsToken && problem.kind !== 'unreachable')) return;
    this.#problem = problem;
    this.#heldAt = this.#now();
    if (problem.needsToken) {
      this.#retryAt = null;
      return;
    }
    const wait = UNREACHABLE_BACKOFF_MS[Math.min(this.#step, UNREACHABLE_BACKOFF_MS.length - 1)];
    this.#step += 1;
    this.#retryAt = this.#heldAt + wait;
  }

  /** The operator clicked or submitted something: the next request may ask the door again. */
  acted(): void {
    this.#actedAt = this.#now();
  }

  /** The door answered: an unreachable door's back-off starts again from its first step. */
  answered(): void {
    this.#step = 0;
  }

  /** A new token (or none), or the operator asking again: nothing is held. */
  release(): void {
    this.#problem = null;
    this.#retryAt = null;
  }

  /** The problem to answer `method` with instead of asking the door, or null to ask it. */
  refusal(method: PropertyKey): Problem | null {
    const problem = this.#problem;
    if (problem === null) return null;
    if (this.#actedAt > this.#heldAt || (this.#retryAt !== null && this.#now() >= this.#retryAt)) {
      this.release();
      return null;
    }
    if (problem.needsToken && TOKEN_FREE.has(method)) return null;
    return problem;
  }
}

/** `client`, with every call answered by the hold while it holds the door. */
export function heldClient(client: DoorClient, hold: DoorHold): DoorClient {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const refusal = hold.refusal(key);
        if (refusal !== null) {
          const held = new HeldRequest(refusal);
          if (STREAMS.has(key)) {
            return {
              [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(held) }),
            };
          }
          return Promise.reject(held);
        }
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then((answer) => {
          hold.answered();
          return answer;
        });
      };
    },
  });
}
