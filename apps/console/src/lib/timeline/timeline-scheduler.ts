/**
 * Batching a stream's events per animation frame: `push()` only appends; one callback per frame
 * (requestAnimationFrame) takes the whole batch. A timer is armed beside the frame, since hidden tabs stop rAF.
 */

export interface Scheduler {
  /** Runs `flush` before the next paint. @default requestAnimationFrame */
  requestFrame(flush: () => void): unknown;
  cancelFrame(handle: unknown): void;
  /** A timer that also flushes, for when frames do not come (hidden tabs stop rAF). @default setTimeout */
  setTimer(flush: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  now(): number;
}

function defaultScheduler(): Scheduler {
  const hasRaf = typeof requestAnimationFrame === 'function';
  return {
    requestFrame: (flush) => (hasRaf ? requestAnimationFrame(flush) : setTimeout(flush, 16)),
    cancelFrame: (handle) => (hasRaf ? cancelAnimationFrame(handle as number) : clearTimeout(handle as ReturnType<typeof setTimeout>)),
    setTimer: (flush, ms) => setTimeout(flush, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    now: () => performance.now(),
  };
}

export interface FrameBatcherOptions {
  scheduler?: Partial<Scheduler>;
  /** The fallback timer's delay. @default 250 @unit ms */
  fallbackMs?: number;
}

/** Holds items until the next frame (or the fallback timer) calls `onFrame`, which takes them with `take()`. */
export class FrameBatcher<T> {
  readonly scheduler: Scheduler;
  readonly #onFrame: () => void;
  readonly #fallbackMs: number;
  #pending: T[] = [];
  #frame: unknown = null;
  #timer: unknown = null;

  constructor(onFrame: () => void, options: FrameBatcherOptions = {}) {
    this.#onFrame = onFrame;
    this.scheduler = { ...defaultScheduler(), ...options.scheduler };
    this.#fallbackMs = options.fallbackMs ?? 250;
  }

  /** Items waiting for the next frame. */
  get size(): number {
    return this.#pending.length;
  }

  /** Appends `item` and makes sure a frame (and the fallback timer) will come. O(1). */
  push(item: T): void {
    this.#pending.push(item);
    this.schedule();
  }

  /** Asks for a frame without adding an item (a change that is not an event, such as a collapsed task). */
  schedule(): void {
    if (this.#frame === null) this.#frame = this.scheduler.requestFrame(this.#onFrame);
    if (this.#timer === null) this.#timer = this.scheduler.setTimer(this.#onFrame, this.#fallbackMs);
  }

  /** Everything pending, in order; the batcher is empty afterwards. */
  take(): T[] {
    const batch = this.#pending;
    this.#pending = [];
    return batch;
  }

  /** Cancels the frame and the timer that are scheduled (the callback is running, or the batcher is done). */
  cancel(): void {
    if (this.#frame !== null) this.scheduler.cancelFrame(this.#frame);
    if (this.#timer !== null) this.scheduler.clearTimer(this.#timer);
    this.#frame = null;
    this.#timer = null;
  }

  /** Cancels what is scheduled and drops what is pending. */
  clear(): void {
    this.cancel();
    this.#pending = [];
  }
}
