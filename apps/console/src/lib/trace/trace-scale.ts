/**
 * The trace's time window and ruler (docs/console.md, "The task page"): which part of the task's axis is on screen,
 * zoomed around a point and panned, and the ruler's ticks for it. Pure, so zoom and pan are tested without a browser.
 */

/** The part of the axis on screen. @unit ms on the task's axis */
export interface TimeWindow {
  from: number;
  to: number;
}

/** The narrowest window: zooming in stops here. @unit ms */
const TRACE_WINDOW_MIN_MS = 1;
/** One zoom step's factor: in divides the window's width by it, out multiplies. */
export const TRACE_ZOOM_STEP = 1.6;
/** One pan step, as a share of the window's width. */
export const TRACE_PAN_STEP = 0.25;

/** Keeps a window inside [0, spanMs] and at least TRACE_WINDOW_MIN_MS wide (at most the whole axis). */
export function clampWindow(w: TimeWindow, spanMs: number): TimeWindow {
  const width = Math.min(spanMs, Math.max(TRACE_WINDOW_MIN_MS, w.to - w.from));
  const from = Math.min(Math.max(0, w.from), spanMs - width);
  return { from, to: from + width };
}

/** The window zoomed by `factor` (> 1 zooms in) around `anchor`, a share of its width from the left (0–1). */
export function zoomWindow(w: TimeWindow, factor: number, anchor: number, spanMs: number): TimeWindow {
  const width = w.to - w.from;
  const at = w.from + width * Math.min(1, Math.max(0, anchor));
  // The anchor keeps its share of the width, also when the narrowest window stops the zoom.
  const next = Math.min(spanMs, Math.max(TRACE_WINDOW_MIN_MS, width / factor));
  const from = at - (at - w.from) * (next / width);
  return clampWindow({ from, to: from + next }, spanMs);
}

/** The window moved by `share` of its width (negative: earlier). */
export function panWindow(w: TimeWindow, share: number, spanMs: number): TimeWindow {
  const shift = (w.to - w.from) * share;
  return clampWindow({ from: w.from + shift, to: w.to + shift }, spanMs);
}

/** A span's bar in the window, as shares of the track's width; `minShare` gives an instant a visible width. */
export function barPlacement(startMs: number, durationMs: number, w: TimeWindow, minShare: number): { left: number; width: number } | null {
  const width = w.to - w.from;
  const end = startMs + durationMs;
  if (end < w.from || startMs > w.to) return null;
  const left = (startMs - w.from) / width;
  const share = Math.max(durationMs / width, minShare);
  return { left, width: share };
}

const STEPS = [1, 2, 5];

/** The ruler's ticks for a window: a round step (1, 2 or 5 × 10^n ms) that makes about `count` of them. @unit ms */
export function rulerTicks(w: TimeWindow, count = 8): number[] {
  const width = w.to - w.from;
  if (!(width > 0)) return [w.from];
  const raw = width / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = (STEPS.map((s) => s * power).find((s) => s >= raw) ?? 10 * power) as number;
  const ticks: number[] = [];
  for (let t = Math.ceil(w.from / step) * step; t <= w.to + step * 1e-9; t += step) ticks.push(Math.round(t * 1000) / 1000);
  return ticks;
}

/**
 * A tick's label, precise enough that neighbouring ticks never read the same: milliseconds while the window stays
 * under a second, else seconds with as many decimals as the step needs (`12.346 s` at a 2 ms step).
 */
export function tickLabel(t: number, ticks: readonly number[], w: TimeWindow): string {
  const step = ticks.length > 1 ? (ticks[1] as number) - (ticks[0] as number) : w.to - w.from;
  const decimals = (unit: number) => Math.min(3, Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9)));
  if (w.to < 1000) return `${t.toFixed(decimals(1))} ms`;
  return `${(t / 1000).toFixed(decimals(1000))} s`;
}
