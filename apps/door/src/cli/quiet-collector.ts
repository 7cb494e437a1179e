import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** How often the door looks whether it is quiet. */
export const QUIET_CHECK_MS = 250;
/** Event-loop utilization under which a check's window counts as quiet. */
export const QUIET_UTILIZATION = 0.02;
/** Growth of V8's used heap (live objects and garbage not yet collected) since the last collection that makes a quiet door collect. */
export const HEAP_GROWTH_BYTES = 16 * 1024 * 1024;

/**
 * Decides when a quiet door collects: once a window of the event loop was nearly idle and the used heap grew by
 * `growthBytes` since the last collection left it (or since the door started). The used heap, not the heap V8 holds:
 * right after a collection V8 still holds the pages it frees later, and a floor taken from them would be too high. Pure, for the tests; `collectWhenQuiet` runs it.
 */
export class QuietCollector {
  private floorBytes: number;

  constructor(
    startBytes: number,
    private readonly collect: () => number,
    private readonly growthBytes = HEAP_GROWTH_BYTES,
    private readonly quietUtilization = QUIET_UTILIZATION,
  ) {
    this.floorBytes = startBytes;
  }

  /** One check: `utilization` of the window just ended, `heapBytes` the heap now. True when it collected. */
  check(utilization: number, heapBytes: number): boolean {
    if (utilization >= this.quietUtilization || heapBytes < this.floorBytes + this.growthBytes) return false;
    this.floorBytes = this.collect();
    return true;
  }
}

/** V8's full collection, without exposing `gc` to the door's own context (the flag is read when a context is made). */
function fullCollection(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  v8.setFlagsFromString('--no-expose-gc');
  return gc;
}

const heapBytes = () => v8.getHeapStatistics().used_heap_size;

/**
 * Once a door serves: when it goes quiet after work that grew its heap, one full collection, so that the memory is
 * given back. Under load V8 fills the old generation with garbage up to its next limit, and on a door that then sits
 * idle nothing collects again (RSS 222 MiB after 100,000 tasks, unchanged 30 s later). This collection frees that
 * garbage and its pages at once (1 s after 40,000 tasks: V8's heap pages 134 → 81 MiB). The young generation, grown
 * to 2 × 16 MiB under load, is shrunk only by a memory-reducing collection, which V8's memory reducer may run some
 * seconds after a full one (docs/benchmarks.md, issue 17, third pass). The collection costs tens of milliseconds and
 * runs only on a quiet event loop, so the load itself pays nothing. Returns the stop function; the timer never keeps
 * the process alive.
 */
export function collectWhenQuiet(): () => void {
  const gc = fullCollection();
  const collector = new QuietCollector(heapBytes(), () => {
    gc();
    return heapBytes();
  });
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    collector.check(window.utilization, heapBytes());
  }, QUIET_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
