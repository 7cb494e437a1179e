/** Order statistics over latency samples in milliseconds. */

/** The q-quantile (0..1) of ascending `sorted`, by the nearest-rank method. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

export function median(values: ArrayLike<number>): number {
  return quantile(sortedCopy(values), 0.5);
}

/** Rounds for display and JSON: figures past 3 significant decimals are noise here. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
