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
 * So it is small only for the start (docs/benchmarks.md).
 */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/** The door serves: the young generation may grow under load again, as V8 sizes it by default. */
export function allowYoungGenerationGrowth(): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}
