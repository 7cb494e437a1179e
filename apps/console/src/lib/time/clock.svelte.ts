/** One shared, ticking "now" for relative times, so a page of timestamps costs one timer. */
class Clock {
  #now = $state(Date.now());
  #timer: ReturnType<typeof setInterval> | null = null;

  /** The current time in ms, refreshed every second while anything reads it. */
  get now(): number {
    this.#timer ??= setInterval(() => {
      this.#now = Date.now();
    }, 1000);
    return this.#now;
  }
}

export const clock = new Clock();
