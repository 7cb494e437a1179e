import { describe, expect, it } from 'vitest';
import { prefixOffsets, visibleRange } from '../src/lib/timeline/virtual';

describe('windowing', () => {
  const offsets = prefixOffsets(10_000, () => 20);

  it('builds prefix offsets from row heights', () => {
    expect(Array.from(prefixOffsets(3, (i) => [10, 20, 30][i]))).toEqual([0, 10, 30, 60]);
    expect(offsets[10_000]).toBe(200_000);
  });

  it('renders only the rows meeting the viewport and its overscan', () => {
    expect(visibleRange(offsets, 0, 400, 0)).toEqual({ start: 0, end: 20 });
    expect(visibleRange(offsets, 10_000, 400, 100)).toEqual({ start: 495, end: 525 });
    expect(visibleRange(offsets, 199_600, 400, 0)).toEqual({ start: 9980, end: 10_000 });
  });

  it('copes with an empty list, uneven rows and a scroll past the end', () => {
    expect(
      visibleRange(
        prefixOffsets(0, () => 1),
        0,
        100,
        0,
      ),
    ).toEqual({ start: 0, end: 0 });
    const uneven = prefixOffsets(4, (i) => [100, 5, 5, 300][i]);
    expect(visibleRange(uneven, 104, 10, 0)).toEqual({ start: 1, end: 4 });
    expect(visibleRange(offsets, 1e9, 400, 0)).toEqual({ start: 9999, end: 10_000 });
  });
});
