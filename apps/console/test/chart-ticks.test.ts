import { describe, expect, it } from 'vitest';
import { valueTicks } from '../src/lib/rollups/chart-ticks';
import { formatValue } from '../src/lib/rollups/rollup-charts';

const labels = (max: number, unit: 'tasks' | 'tokens' | 'ms') => valueTicks(max, unit).map((t) => formatValue(t, unit));

describe('a value axis’s ticks', () => {
  it('counts get whole ticks only, from 0 to the first tick at or above the largest value', () => {
    expect(valueTicks(1, 'tokens')).toEqual([0, 1]);
    expect(valueTicks(2, 'tasks')).toEqual([0, 1, 2]);
    expect(valueTicks(3, 'tasks')).toEqual([0, 1, 2, 3]);
    expect(valueTicks(5, 'tasks')).toEqual([0, 2, 4, 6]);
    expect(valueTicks(130, 'tokens')).toEqual([0, 50, 100, 150]);
    expect(valueTicks(12_345, 'tokens')).toEqual([0, 5000, 10_000, 15_000]);
    expect(valueTicks(0.4, 'tokens')).toEqual([0, 1]);
  });

  it('nothing to draw still makes an axis of 0 and 1, never an empty or a repeated one', () => {
    expect(valueTicks(0, 'tasks')).toEqual([0, 1]);
    expect(valueTicks(Number.NaN, 'ms')).toEqual([0, 1]);
  });

  it('durations step by what reads whole: milliseconds, then the clock’s steps', () => {
    expect(labels(556, 'ms')).toEqual(['0 ms', '200 ms', '400 ms', '600 ms']);
    expect(labels(1500, 'ms')).toEqual(['0 ms', '500 ms', '1.0 s', '1.5 s']);
    expect(labels(12_000, 'ms')).toEqual(['0 ms', '5.0 s', '10 s', '15 s']);
    expect(labels(150_000, 'ms')).toEqual(['0 ms', '1 min 0 s', '2 min 0 s', '3 min 0 s']);
    expect(valueTicks(3 * 86_400_000, 'ms')).toEqual([0, 86_400_000, 172_800_000, 259_200_000]);
  });

  it('for any largest value, at most five ticks, each label its own, the last at or above the value', () => {
    for (const unit of ['tasks', 'tokens', 'ms'] as const) {
      for (let max = 0.5; max < 5e8; max *= 1.37) {
        const ticks = valueTicks(max, unit);
        const shown = ticks.map((t) => formatValue(t, unit));
        expect(ticks.length, `${unit} ${max}`).toBeLessThanOrEqual(5);
        expect(new Set(shown).size, `${unit} ${max}: ${shown.join(' ')}`).toBe(ticks.length);
        expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
        if (unit !== 'ms') expect(ticks.every(Number.isInteger), `${unit} ${max}`).toBe(true);
      }
    }
  });
});
