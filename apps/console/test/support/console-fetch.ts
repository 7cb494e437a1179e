/** Replaces the console's one fetch (src/lib/io/console-api.ts) for a test, and puts it back after the test. */
import { afterEach } from 'vitest';
import { type ConsoleFetch, replaceConsoleFetch } from '../../src/lib/io/console-api';

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

/** Makes `fake` the fetch every console request goes through until the test ends; returns it (a vi.fn keeps its calls). */
export function useConsoleFetch<F extends ConsoleFetch>(fake: F): F {
  restore?.();
  restore = replaceConsoleFetch(fake);
  return fake;
}
