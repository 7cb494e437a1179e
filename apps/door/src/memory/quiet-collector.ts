import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** How often the door looks whether it is quiet. */
export const QUIET_CHECK_MS = 250;
/** Event-loop utilization under which a check's window counts as quiet. */
export const QUIET_UTILIZATION = 0.02;
/**
 * Growth since the last collection that makes a quiet door collect: of V8's used heap (live objects and garbage not
 * yet collected), or of the heap V8 holds (pages, used or not).
 */
export const HEAP_GROWTH_BYTES = 16 * 1024 * 1024;
/** At most this many full collections in a row when the door collects (each frees pages the one before emptied). */
export const MAX_COLLECTIONS = 4;
/** A collection that gave back less than this of the heap V8 holds ends the row. */
export const MIN_RELEASE_BYTES = 1024 * 1024;

export interface HeapNow {
  /** Live objects and garbage not yet collected (`used_heap_size`). */
  usedBytes: number;
  /** What V8 holds, pages used or not (`total_heap_size`). */
  heldBytes: number;
}

/**
 * Decides when a quiet door collects: once a window of the event loop was nearly idle, and since the last
 * collection left it (or since the door started) either the used heap or the heap V8 holds grew by `growthBytes`.
 * The held heap matters because V8's own collections under load empty the old generation's pages without giving
 * them back: after 100,000 tasks, 26 MiB used in 101 MiB held. Measured from what the last collection left, so a
 * heap V8 keeps anyway does not make the door collect again and again. Pure, for the tests; `collectWhenQuiet` runs it.
 */
export class QuietCollector {
  private floor: HeapNow;

  constructor(
    start: HeapNow,
    private readonly collect: () => HeapNow,
    private readonly growthBytes = HEAP_GROWTH_BYTES,
    private readonly quietUtilization = QUIET_UTILIZATION,
  ) {
    this.floor = start;
  }

  /** One check: `utilization` of the window just ended, `heap` now. True when it collected. */
  check(utilization: number, heap: HeapNow): boolean {
    if (utilization >= this.quietUtilization) return false;
    const grown = heap.usedBytes >= this.floor.usedBytes + this.growthBytes || heap.heldBytes >= this.floor.heldBytes + this.growthBytes;
    if (!grown) return false;
    this.floor = this.collect();
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

function heapNow(): HeapNow {
  const { used_heap_size, total_heap_size } = v8.getHeapStatistics();
  return { usedBytes: used_heap_size, heldBytes: total_heap_size };
}

/**
 * Full collections in a row, up to `MAX_COLLECTIONS`, while each gives back at least `MIN_RELEASE_BYTES` of the held
 * heap: the first frees the garbage, the next ones compact the pages it left sparse and release them (after 100,000
 * tasks: held 101 MiB → 54 after one, → 24 after three; RSS 184 → 107 MiB; ~110 ms in all).
 */
export function collectUntilReleased(gc: () => void, heap: () => HeapNow = heapNow): HeapNow {
  let now = heap();
  for (let i = 0; i < MAX_COLLECTIONS; i++) {
    const heldBefore = now.heldBytes;
    gc();
    now = heap();
    // The first collection always has a second: V8 may release the pages the first emptied only then.
    if (i > 0 && heldBefore - now.heldBytes < MIN_RELEASE_BYTES) break;
  }
  return now;
}

/**
 * Once a door serves: when it goes quiet after work that grew its heap, full collections until V8 gives the pages
 * back (`collectUntilReleased`). Under load V8 fills the old generation with garbage up to its next limit, and its own
 * collections empty pages without releasing them; on a door that then sits idle nothing collects again (RSS 222 MiB
 * after 100,000 tasks, unchanged 30 s later). The young generation is kept small by young-generation.ts; V8 shrinks
 * it only in a memory-reducing collection, which no API of Node 20 asks for (docs/benchmarks.md, issue 17, third and
 * fifth passes). The collections cost ~30 ms each and run only on a quiet event loop, so the load itself pays
 * nothing; a request that arrives meanwhile waits for them. Returns the stop function; the timer never keeps the
 * process alive.
 */
export function collectWhenQuiet(): () => void {
  const gc = fullCollection();
  const collector = new QuietCollector(heapNow(), () => collectUntilReleased(gc));
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    collector.check(window.utilization, heapNow());
  }, QUIET_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
