/**
 * One thing a view reads, and reads again (a task, a page of tasks, a folder, the sessions on this host…): what it
 * read, whether a read runs, or the problem the last one met, in words (errors.ts, as Operation has them). Only the
 * newest request lands: a new read aborts the one before it (the AbortSignal handed to the read), and an answer or
 * a failure that arrives after a newer request started is dropped. What was read stays while a new read runs and
 * when it fails; the problem stays until a read succeeds.
 */
import { describeError, type ErrorContext, isAbort, type Problem } from './errors.js';

export interface LoaderOptions {
  /** Names the door in a problem's words. */
  context?: ErrorContext;
  /** Words a failure. @default describeError(error, context) */
  describe?: (error: unknown) => Problem;
  /** Called with each problem that lands, after `problem` holds it (a 401 opens the door's token prompt). */
  onProblem?: (problem: Problem) => void;
}

export class Loader<T> {
  #value = $state.raw<T | null>(null);
  #loading = $state(false);
  #problem = $state.raw<Problem | null>(null);
  #loadedAt = $state<number | null>(null);
  readonly #describe: (error: unknown) => Problem;
  readonly #onProblem: ((problem: Problem) => void) | undefined;
  #request = 0;
  #abort: AbortController | null = null;

  constructor(options: LoaderOptions = {}) {
    this.#describe = options.describe ?? ((error) => describeError(error, options.context));
    this.#onProblem = options.onProblem;
  }

  /** What the newest successful read answered (or `set` put there); null before the first. */
  get value(): T | null {
    return this.#value;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get problem(): Problem | null {
    return this.#problem;
  }
  /** When the value on screen was read (ms since the epoch), or null. */
  get loadedAt(): number | null {
    return this.#loadedAt;
  }

  /**
   * Runs `read`, aborting the read under way. Resolves to what it read once that landed; to null when it failed
   * (`problem` says why), was aborted, or a newer request (or `reset`) superseded it.
   */
  async load(read: (signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const request = ++this.#request;
    this.#abort?.abort(new DOMException('superseded', 'AbortError'));
    const abort = new AbortController();
    this.#abort = abort;
    this.#loading = true;
    try {
      const value = await read(abort.signal);
      if (request !== this.#request) return null;
      this.#value = value;
      this.#problem = null;
      this.#loadedAt = Date.now();
      return value;
    } catch (error) {
      if (request !== this.#request || isAbort(error)) return null;
      const problem = this.#describe(error);
      this.#problem = problem;
      this.#onProblem?.(problem);
      return null;
    } finally {
      if (request === this.#request) {
        this.#loading = false;
        this.#abort = null;
      }
    }
  }

  /** Replaces the value without reading (a fresher copy from a stream; rows a refused token may no longer show). A read under way still lands. */
  set(value: T | null): void {
    this.#value = value;
  }

  /** Aborts the read under way and forgets the value and when it was read; the problem too, unless `keepProblem`. */
  reset(options: { keepProblem?: boolean } = {}): void {
    this.#request += 1;
    this.#abort?.abort(new DOMException('reset', 'AbortError'));
    this.#abort = null;
    this.#loading = false;
    this.#value = null;
    this.#loadedAt = null;
    if (!options.keepProblem) this.#problem = null;
  }
}
