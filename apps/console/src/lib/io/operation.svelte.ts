/**
 * One operator action against a door (send, cancel, reply, stop…): whether it runs, what it answered, or the
 * problem it met, in words (errors.ts). Views show the result or the problem next to the button that started it.
 */
import { describeError, type ErrorContext, isAbort, type Problem } from './errors.js';

export class Operation<T> {
  #running = $state(false);
  #result = $state.raw<T | null>(null);
  #problem = $state.raw<Problem | null>(null);
  readonly #context: ErrorContext;
  readonly #onProblem: ((problem: Problem) => void) | undefined;
  #run = 0;

  constructor(context: ErrorContext = {}, onProblem?: (problem: Problem) => void) {
    this.#context = context;
    this.#onProblem = onProblem;
  }

  get running(): boolean {
    return this.#running;
  }

  get result(): T | null {
    return this.#result;
  }

  get problem(): Problem | null {
    return this.#problem;
  }

  /** Runs `action`; its answer becomes `result`, its failure `problem`. Resolves to the answer, or null. */
  async run(action: () => Promise<T>): Promise<T | null> {
    const run = ++this.#run;
    this.#running = true;
    this.#problem = null;
    try {
      const result = await action();
      if (run === this.#run) this.#result = result;
      return result;
    } catch (error) {
      if (run !== this.#run || isAbort(error)) return null;
      const problem = describeError(error, this.#context);
      this.#problem = problem;
      this.#result = null;
      this.#onProblem?.(problem);
      return null;
    } finally {
      if (run === this.#run) this.#running = false;
    }
  }

  reset(): void {
    this.#run += 1;
    this.#running = false;
    this.#result = null;
    this.#problem = null;
  }
}
