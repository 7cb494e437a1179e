/**
 * A chart's value axis (docs/console.md, "Charts"): ticks from 0 that fit their values. Counts (tasks, tokens) are
 * whole numbers, so their ticks are too; durations step by what reads whole on a clock (5 ms, 250 ms, 15 s, 5 min…).
 * No two ticks ever read the same label, so an axis never says `0 0 1 1`.
 */
import { type ChartData, formatValue } from './rollup-charts.js';

/** At most this many steps above 0 (so five labels at most, 0 included). */
const MOST_STEPS = 4;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Steps of a duration axis above a second: each a whole number of the unit formatDuration shows it in. @unit ms */
const CLOCK_STEPS = [
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
];

/** 1, 2, 2.5, 5 × 10^k for k ≥ `fromPower`, ascending, from the first at or above `least`. */
function* decimalSteps(least: number, fromPower: number): Generator<number> {
  for (let power = Math.max(fromPower, Math.floor(Math.log10(Math.max(least, 1e-9))) - 1); ; power++) {
    for (const m of [1, 2, 2.5, 5]) {
      const step = m * 10 ** power;
      // 2.5 × 10^k is whole from k = 1 on; below that it would put a fraction on a whole-numbered axis.
      if (fromPower >= 0 && !Number.isInteger(step)) continue;
      if (step >= least) yield step;
    }
  }
}

function* stepsFor(unit: ChartData['unit'], least: number): Generator<number> {
  if (unit !== 'ms') {
    yield* decimalSteps(least, 0);
    return;
  }
  // Below a second formatDuration shows whole milliseconds; from a second on, the clock's steps, then whole days.
  for (const step of decimalSteps(least, 0)) {
    if (step >= SECOND) break;
    yield step;
  }
  for (const step of CLOCK_STEPS) if (step >= least) yield step;
  for (const step of decimalSteps(Math.max(least, 24 * HOUR) / (24 * HOUR), 0)) yield step * 24 * HOUR;
}

/**
 * The ticks of a value axis whose largest value is `max`: 0, then equal steps up to the first tick at or above `max`
 * (the axis ends there). The step is the smallest of the unit's steps that needs at most four of them and gives every
 * tick its own label.
 */
export function valueTicks(max: number, unit: ChartData['unit']): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  for (const step of stepsFor(unit, top / MOST_STEPS)) {
    const count = Math.max(1, Math.ceil(top / step - 1e-9));
    const ticks = Array.from({ length: count + 1 }, (_, i) => i * step);
    const labels = new Set(ticks.map((t) => formatValue(t, unit)));
    if (labels.size === ticks.length) return ticks;
  }
  return [0, top];
}
