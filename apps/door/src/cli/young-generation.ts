import v8 from 'node:v8';

/**
 * Keeps V8's young generation at its initial size (two semi-spaces of 1 MiB on 64-bit) in a door's process, instead
 * of letting it grow to 2 × 16 MiB, which the door's start (NestJS, TypeORM, the manifest's schemas) does at once and
 * never gives back: about 21 MiB of the idle RSS (docs/benchmarks.md). Called before the door's code is imported.
 *
 * Why a growth factor and not `--max-semi-space-size`: the maximum is fixed when the heap is set up, before any of
 * our code runs, whereas the growth factor is read each time the young generation would grow. The cost is more
 * frequent scavenges of a small space; a door's live set between requests is small, so each is short (measured in
 * docs/benchmarks.md: no loss of SendMessage or stream throughput beyond the noise of this machine).
 */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
