import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** V8's default growth factor of the young generation (`--semi-space-growth-factor`). */
const DEFAULT_GROWTH_FACTOR = 2;

/**
 * Keeps V8's young generation at its initial size (two semi-spaces of 1 MiB on 64-bit) while a door starts, instead
 * of letting it grow to 2 × 16 MiB, which the door's start (NestJS, TypeORM, the manifest's schemas) does at once and
 * never gives back: about 21 MiB of the idle RSS (docs/benchmarks.md). Called before the door's code is imported;
 * `allowYoungGenerationGrowth` once the door serves.
 *
 * Why a growth factor and not `--max-semi-space-size`: the maximum is fixed when the heap is set up, before any of
 * our code runs, whereas the growth factor is read each time the young generation would grow. The cost is more
 * frequent scavenges of a small space, and under load objects that live across a scavenge (requests in flight) are
 * promoted early and fill the old generation: kept small for good, RSS after 10,000 tasks was 191 MiB instead of 162.
 * So it is smallest for the start, and grows under load up to a cap (`allowYoungGenerationGrowth`); the garbage the
 * old generation collects meanwhile is collected once the door goes quiet (quiet-collector.ts; docs/benchmarks.md,
 * issue 17, third pass).
 */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/** How large the young generation (both semi-spaces) may grow once the door serves: 2 × 4 MiB, not V8's 2 × 16 MiB. */
export const YOUNG_GENERATION_CAP_BYTES = 8 * 1024 * 1024;

/**
 * The door serves: the young generation may grow under load again, as V8 grows it by default, up to `capBytes`.
 * V8 would take it to 2 × 16 MiB under load and keep it (~28 MiB resident after 10,000 tasks); past the cap the
 * growth factor goes back to 1. Checked after each collection V8 reports, so it may overshoot by one step at most.
 */
export function allowYoungGenerationGrowth(capBytes = YOUNG_GENERATION_CAP_BYTES): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  const observer = new PerformanceObserver(() => {
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (young === undefined || young.space_size < capBytes) return;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}
