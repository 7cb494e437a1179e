/**
 * Windowing for long lists: the top offset of every row (measured heights where known, estimates elsewhere) and
 * the slice of rows that meets the viewport. The view renders only that slice.
 */

/** offsets[i] is row i's top; offsets[count] is the total height. O(n), once per change of the rows. */
export function prefixOffsets(count: number, heightAt: (index: number) => number): Float64Array {
  const offsets = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) offsets[i + 1] = offsets[i] + heightAt(i);
  return offsets;
}

/** The rows [start, end) that meet [scrollTop - overscan, scrollTop + height + overscan]. O(log n). */
export function visibleRange(offsets: Float64Array, scrollTop: number, height: number, overscan: number): { start: number; end: number } {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const top = Math.max(0, scrollTop - overscan);
  const bottom = scrollTop + height + overscan;
  // The last row whose top is at or above `top`.
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= top) lo = mid;
    else hi = mid - 1;
  }
  const start = lo;
  // The first row whose top is below `bottom`.
  lo = start;
  hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid] < bottom) lo = mid + 1;
    else hi = mid;
  }
  return { start, end: Math.max(start + 1, Math.min(count, lo)) };
}
