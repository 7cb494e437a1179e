/**
 * The task page's trace as the operator moves through it (docs/console.md, "The task page"): which spans are
 * collapsed, the rows that leaves, the row the keyboard is on, the span selected for the detail panel, and the time
 * window (zoom and pan). The spans come from trace-spans.ts; components only draw what this holds.
 */
import type { Trace, TraceSpan } from './trace-spans.js';
import { clampWindow, panWindow, TRACE_PAN_STEP, TRACE_ZOOM_STEP, type TimeWindow, zoomWindow } from './trace-scale.js';

const EMPTY: Trace = { spans: [], spanMs: 1 };

export class TraceView {
  #trace = $state.raw<Trace>(EMPTY);
  #collapsed = $state.raw<ReadonlySet<number>>(new Set());
  #active = $state(0);
  #selected = $state<number | null>(null);
  #window = $state.raw<TimeWindow | null>(null);
  /** Visible spans' ids in row order: depth first, skipping what a collapsed span holds. */
  readonly #rows = $derived.by(() => visibleRows(this.#trace.spans, this.#collapsed));

  get spans(): readonly TraceSpan[] {
    return this.#trace.spans;
  }
  get spanMs(): number {
    return this.#trace.spanMs;
  }
  get rows(): readonly number[] {
    return this.#rows;
  }
  /** The row (index into rows) the keyboard is on. */
  get active(): number {
    return Math.min(this.#active, Math.max(0, this.#rows.length - 1));
  }
  get selected(): TraceSpan | null {
    return this.#selected === null ? null : (this.#trace.spans[this.#selected] ?? null);
  }
  /** The part of the axis on screen: the whole task until zoomed. */
  get window(): TimeWindow {
    return this.#window ?? { from: 0, to: this.#trace.spanMs };
  }
  get zoomed(): boolean {
    return this.#window !== null;
  }
  isCollapsed(id: number): boolean {
    return this.#collapsed.has(id);
  }

  /**
   * A new reading of the record. Collapsed spans and the selection are kept by id (a span's place in depth-first
   * order): a running task's new work lands last, so they stay on the same spans, but a member's new entries nested
   * earlier shift the ids after them. The zoom window stays, kept on the axis.
   */
  setTrace(trace: Trace): void {
    const grew = trace.spanMs !== this.#trace.spanMs;
    this.#trace = trace;
    if (this.#selected !== null && this.#selected >= trace.spans.length) this.#selected = null;
    if (this.#window && grew) this.#window = clampWindow(this.#window, trace.spanMs);
  }

  /** Moves the keyboard's row to `row` (clamped), returning it. */
  focusRow(row: number): number {
    this.#active = Math.min(Math.max(0, row), Math.max(0, this.#rows.length - 1));
    return this.#active;
  }
  select(id: number | null): void {
    this.#selected = id;
    if (id === null) return;
    const row = this.#rows.indexOf(id);
    if (row >= 0) this.#active = row;
  }
  /** Collapses or expands a span with children; the keyboard's row follows the span it was on. */
  toggle(id: number, open?: boolean): void {
    const span = this.#trace.spans[id];
    if (!span || span.children.length === 0) return;
    const onId = this.#rows[this.active];
    const collapse = open === undefined ? !this.#collapsed.has(id) : !open;
    if (collapse === this.#collapsed.has(id)) return;
    const next = new Set(this.#collapsed);
    if (collapse) next.add(id);
    else next.delete(id);
    this.#collapsed = next;
    const row = onId === undefined ? -1 : this.#rows.indexOf(onId);
    this.#active = row >= 0 ? row : Math.max(0, this.#rows.indexOf(id));
  }
  /** Collapses every span at `depth` or deeper that has children (or expands everything when depth is null). */
  collapseFrom(depth: number | null): void {
    this.#collapsed = depth === null ? new Set() : new Set(this.#trace.spans.filter((s) => s.depth >= depth && s.children.length > 0).map((s) => s.id));
    this.#active = 0;
  }

  zoom(factor: number, anchor = 0.5): void {
    this.#window = zoomWindow(this.window, factor, anchor, this.#trace.spanMs);
  }
  zoomIn(anchor = 0.5): void {
    this.zoom(TRACE_ZOOM_STEP, anchor);
  }
  zoomOut(anchor = 0.5): void {
    this.zoom(1 / TRACE_ZOOM_STEP, anchor);
  }
  pan(steps: number): void {
    this.#window = panWindow(this.window, TRACE_PAN_STEP * steps, this.#trace.spanMs);
  }
  /** The window on one span (a little margin either side). */
  zoomTo(id: number): void {
    const span = this.#trace.spans[id];
    if (!span) return;
    const margin = Math.max(span.durationMs * 0.05, 1);
    this.#window = clampWindow({ from: span.startMs - margin, to: span.startMs + span.durationMs + margin }, this.#trace.spanMs);
  }
  resetZoom(): void {
    this.#window = null;
  }

  /**
   * The treegrid's keys (WAI-ARIA APG, "Treegrid"): ↑/↓ move, → expands or goes to the first child, ← collapses or
   * goes to the parent, Home/End, Enter or Space selects; + and − zoom around the centre, 0 shows the whole task,
   * Shift+← and Shift+→ pan. Returns whether it took the key.
   */
  key(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'metaKey' | 'altKey'>, pageRows = 10): boolean {
    if (event.ctrlKey || event.metaKey || event.altKey) return false;
    const rows = this.#rows;
    const id = rows[this.active];
    const span = id === undefined ? undefined : this.#trace.spans[id];
    switch (event.key) {
      case 'ArrowDown':
        this.focusRow(this.active + 1);
        return true;
      case 'ArrowUp':
        this.focusRow(this.active - 1);
        return true;
      case 'PageDown':
        this.focusRow(this.active + pageRows);
        return true;
      case 'PageUp':
        this.focusRow(this.active - pageRows);
        return true;
      case 'Home':
        this.focusRow(0);
        return true;
      case 'End':
        this.focusRow(rows.length - 1);
        return true;
      case 'ArrowRight':
        if (event.shiftKey) this.pan(1);
        else if (span && span.children.length > 0) {
          if (this.#collapsed.has(span.id)) this.toggle(span.id, true);
          else this.focusRow(this.active + 1);
        }
        return true;
      case 'ArrowLeft':
        if (event.shiftKey) this.pan(-1);
        else if (span && span.children.length > 0 && !this.#collapsed.has(span.id)) this.toggle(span.id, false);
        else if (span && span.parent >= 0) this.focusRow(rows.indexOf(span.parent));
        return true;
      case 'Enter':
      case ' ':
        if (id !== undefined) this.select(id);
        return true;
      case '+':
      case '=':
        this.zoomIn();
        return true;
      case '-':
      case '_':
        this.zoomOut();
        return true;
      case '0':
        this.resetZoom();
        return true;
      default:
        return false;
    }
  }
}

/** The ids of the spans shown, in order: every span whose ancestors are all expanded. */
export function visibleRows(spans: readonly TraceSpan[], collapsed: ReadonlySet<number>): number[] {
  const rows: number[] = [];
  let skipBelow = -1;
  for (const span of spans) {
    if (skipBelow >= 0 && span.depth > skipBelow) continue;
    skipBelow = -1;
    rows.push(span.id);
    if (collapsed.has(span.id) && span.children.length > 0) skipBelow = span.depth;
  }
  return rows;
}
