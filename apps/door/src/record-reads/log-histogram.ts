import type { Percentiles } from '@murmur/protocol';

/** Bins per doubling: a bin's upper edge is at most 2^(1/16) − 1 ≈ 4.4 % above any value in it. */
const BINS_PER_DOUBLING = 16;

/**
 * Non-negative values (durations in ms, token counts) counted in log-scale bins, so its memory is bounded (≈ 16 bins
 * per doubling of the largest value) however many values it counts. Percentiles are by nearest rank and read as the
 * largest value seen in the rank's bin: exact when the bin holds one distinct value, at most 4.4 % above otherwise
 * (docs/console.md, "Rollups").
 */
export class LogHistogram {
  /** Per bin: how many values, and the largest. */
  private readonly bins = new Map<number, { count: number; max: number }>();
  count = 0;
  max: number | null = null;

  add(value: number): void {
    const v = Math.max(0, value);
    const bin = v < 1 ? -1 : Math.floor(Math.log2(v) * BINS_PER_DOUBLING);
    const held = this.bins.get(bin);
    if (held) {
      held.count += 1;
      held.max = Math.max(held.max, v);
    } else this.bins.set(bin, { count: 1, max: v });
    this.count += 1;
    if (this.max === null || v > this.max) this.max = v;
  }

  /** The nearest-rank `p`th percentile (0 < p ≤ 100), null when empty. */
  percentile(p: number): number | null {
    if (this.count === 0 || this.max === null) return null;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (const [, held] of [...this.bins].sort(([a], [b]) => a - b)) {
      seen += held.count;
      if (seen >= rank) return held.max;
    }
    return this.max;
  }

  summary(): Percentiles {
    return { count: this.count, p50: this.percentile(50), p90: this.percentile(90), p99: this.percentile(99), max: this.max };
  }
}
