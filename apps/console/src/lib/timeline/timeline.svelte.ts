/**
 * The live timeline of a stream (murmur.WatchSession, or one task's SubscribeToTask), grouped by task: the Svelte
 * state the view reads, built from three plain pieces so it stays responsive at 2,000 events/s:
 * - timeline-scheduler.ts: `push()` only appends; one flush per animation frame (a timer as a fallback for hidden
 *   tabs) takes the whole batch;
 * - timeline-reducer.ts: applies the batch's events to a plain model (tasks, entries, banners), capped;
 * - timeline-materializer.ts: turns the model into immutable rows, keeping the identity of rows that did not change.
 * The state is then written once per flush, as `$state.raw` arrays; the view renders only the visible window of
 * `rows` (VirtualList).
 */
import type { MurmurStreamEvent, StreamDataEvent } from '@murmur/client';
import type { PerfCounters } from './perf.js';
import { isCollapsed, materializeRows, taskIndex } from './timeline-materializer.js';
import { type TimelineLimits, TimelineReducer } from './timeline-reducer.js';
import type { Banner, TimelineRow } from './timeline-rows.js';
import { FrameBatcher, type Scheduler } from './timeline-scheduler.js';
export type { Banner, Entry, TaskHeaderRow, TextEntry, TimelineRow, ToolEntry } from './timeline-rows.js';

export interface TimelineOptions {
  limits?: Partial<TimelineLimits>;
  scheduler?: Partial<Scheduler>;
  /** Counters to update on every flush (the session view passes the page's `window.__murmurConsole`). */
  perf?: PerfCounters;
  /** Runs after the state is written, to include the DOM update in the batch time (svelte's flushSync). */
  afterFlush?: () => void;
  /** The fallback timer's delay. @default 250 @unit ms */
  fallbackMs?: number;
}

export class TimelineStore {
  #rows = $state.raw<readonly TimelineRow[]>([]);
  #banners = $state.raw<readonly Banner[]>([]);
  #taskCount = $state(0);
  #droppedTasks = $state(0);
  #closed = $state(false);
  #conversationMode = $state<string | null>(null);

  readonly #reducer: TimelineReducer;
  readonly #batcher: FrameBatcher<StreamDataEvent>;
  readonly #perf: PerfCounters | undefined;
  readonly #afterFlush: (() => void) | undefined;
  #needsRebuild = false;
  /** Events applied since the last write of the state: the next flush counts them as rendered. */
  #applied = 0;
  #disposed = false;

  constructor(options: TimelineOptions = {}) {
    this.#reducer = new TimelineReducer({ limits: options.limits });
    this.#batcher = new FrameBatcher<StreamDataEvent>(this.flush, { scheduler: options.scheduler, fallbackMs: options.fallbackMs });
    this.#perf = options.perf;
    this.#afterFlush = options.afterFlush;
  }

  /** Every row, in order: each task's header, then (unless collapsed) its entries. Render a window of it. */
  get rows(): readonly TimelineRow[] {
    return this.#rows;
  }

  get banners(): readonly Banner[] {
    return this.#banners;
  }

  get taskCount(): number {
    return this.#taskCount;
  }

  /** Tasks dropped from the start to stay within maxTasks. */
  get droppedTasks(): number {
    return this.#droppedTasks;
  }

  /** The capsule closed its stream (capsule-closed). */
  get closed(): boolean {
    return this.#closed;
  }

  /** `lifecycle.conversation` from the connection-ack, once it came. */
  get conversationMode(): string | null {
    return this.#conversationMode;
  }

  /** Events waiting for the next frame. */
  get pendingCount(): number {
    return this.#batcher.size;
  }

  /** Takes one event off a stream. Connection events are the feed's business and are ignored here. Cheap: O(1). */
  push(event: MurmurStreamEvent): void {
    if (this.#disposed || event.kind === 'connection') return;
    this.#batcher.push(event);
    if (this.#perf) this.#perf.framesReceived += 1;
    if (this.#batcher.size >= this.#reducer.limits.maxPending) this.#applyPending();
  }

  /** Collapses or expands a task's entries. */
  toggle(taskId: string): void {
    const model = this.#reducer;
    const log = model.tasks.get(taskId);
    if (!log) return;
    model.setCollapsed(taskId, !isCollapsed(log, taskIndex(model, taskId), model.tasks.size, model.limits.keepOpen));
    this.#needsRebuild = true;
    this.flush();
  }

  /** Marks a gap the console knows of (a Reconnect after the stream was lost), keeping everything shown. */
  markGap(text: string): void {
    this.#reducer.noteGap(text);
    this.#banners = this.#reducer.banners;
  }

  dismissBanner(key: string): void {
    this.#reducer.dismissBanner(key);
    this.#banners = this.#reducer.banners;
  }

  /** Applies everything pending and writes the state now (the frame callback; tests call it directly). */
  flush = (): void => {
    this.#batcher.cancel();
    if (this.#disposed) return;
    if (this.#batcher.size === 0 && !this.#needsRebuild) return;
    const clock = this.#batcher.scheduler;
    const started = clock.now();
    this.#applyPending();
    this.#publish();
    this.#afterFlush?.();
    const ms = round(clock.now() - started);
    if (this.#perf) {
      this.#perf.framesRendered += this.#applied;
      this.#perf.lastBatchMs = ms;
      this.#perf.maxBatchMs = Math.max(this.#perf.maxBatchMs, ms);
      this.#perf.batches += 1;
    }
    this.#applied = 0;
  };

  /** Forgets everything: a new stream replays the door's buffer, which would otherwise repeat what is shown. */
  reset(): void {
    this.#batcher.clear();
    this.#applied = 0;
    this.#reducer.reset();
    this.#publish();
  }

  dispose(): void {
    this.#disposed = true;
    this.#batcher.clear();
  }

  #applyPending(): void {
    const batch = this.#batcher.take();
    if (batch.length === 0) return;
    for (const event of batch) this.#reducer.apply(event);
    this.#applied += batch.length;
    this.#needsRebuild = true;
    this.#publishFlags();
  }

  #publish(): void {
    this.#needsRebuild = false;
    const model = this.#reducer;
    this.#rows = materializeRows(model, model.limits);
    this.#banners = model.banners;
    this.#taskCount = model.tasks.size;
    this.#publishFlags();
  }

  /** The session's flags are cheap to write, so they show as soon as their events are applied. */
  #publishFlags(): void {
    const model = this.#reducer;
    this.#droppedTasks = model.droppedTasks;
    this.#closed = model.closed;
    this.#conversationMode = model.conversationMode;
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
