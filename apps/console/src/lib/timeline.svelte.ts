/**
 * The live timeline of a stream (murmur.WatchSession, or one task's SubscribeToTask), grouped by task.
 *
 * Built to stay responsive at 2,000 events/s:
 * - `push()` only appends to a plain array; one flush per animation frame (requestAnimationFrame, with a timer
 *   as a fallback for hidden tabs, where rAF stops) applies the whole batch and then writes the reactive state once.
 * - The model is plain objects; what the view reads is `$state.raw` arrays of immutable rows. A row that did not
 *   change keeps its identity, so Svelte's keyed `each` skips it; a row that changed is a new object.
 * - Text chunks are coalesced into one block per inference call; long texts, tool output, entries per task and
 *   tasks are capped (the oldest part goes, with a count of what went). Old finished tasks are collapsed.
 * The view renders only the visible window of `rows` (VirtualList).
 */
import type { MurmurStreamEvent, StreamDataEvent } from '@murmur/client';
import { isTerminalState, type Artifact, messageText as joinedText, type Message, type TaskState } from '@murmur/protocol';
import type { PerfCounters } from './perf.js';
import type { ArtifactEntry, Banner, Entry, TaskHeaderRow, TextEntry, TimelineRow, ToolEntry } from './timeline-rows.js';

export type { ArtifactEntry, Banner, Entry, MoreRow, NoteEntry, OutputChunk, StatusEntry, TaskHeaderRow, TextEntry, TimelineRow, ToolEntry } from './timeline-rows.js';

export interface TimelineLimits {
  /** Tasks kept; the oldest go first. @default 200 */
  maxTasks: number;
  /** Entries kept per task; the oldest go first. @default 400 */
  maxEntriesPerTask: number;
  /** Characters kept per text/thinking block and per tool's output. @default 16384 */
  maxTextChars: number;
  /** Finished tasks stay expanded while they are among the newest this many. @default 3 */
  keepOpen: number;
  /** Banners kept. @default 5 */
  maxBanners: number;
  /** Events held between flushes before they are applied without waiting for a frame (hidden tabs). @default 20000 */
  maxPending: number;
}

export interface Scheduler {
  /** Runs `flush` before the next paint. @default requestAnimationFrame */
  requestFrame(flush: () => void): unknown;
  cancelFrame(handle: unknown): void;
  /** A timer that also flushes, for when frames do not come (hidden tabs stop rAF). @default setTimeout */
  setTimer(flush: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  now(): number;
}

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

const DEFAULT_LIMITS: TimelineLimits = {
  maxTasks: 200,
  maxEntriesPerTask: 400,
  maxTextChars: 16_384,
  keepOpen: 3,
  maxBanners: 5,
  maxPending: 20_000,
};

function defaultScheduler(): Scheduler {
  const hasRaf = typeof requestAnimationFrame === 'function';
  return {
    requestFrame: (flush) => (hasRaf ? requestAnimationFrame(flush) : setTimeout(flush, 16)),
    cancelFrame: (handle) => (hasRaf ? cancelAnimationFrame(handle as number) : clearTimeout(handle as ReturnType<typeof setTimeout>)),
    setTimer: (flush, ms) => setTimeout(flush, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    now: () => performance.now(),
  };
}

/** A mutable slot whose `entry` snapshot is replaced (never mutated) when the slot changes. */
interface Cell<E extends Entry = Entry> {
  draft: E;
  entry: E;
  dirty: boolean;
}

interface TaskLog {
  taskId: string;
  contextId: string | null;
  state: TaskState | null;
  statusText: string | null;
  firstAt: string | null;
  lastAt: string | null;
  cells: Cell[];
  dropped: number;
  openText: Cell<TextEntry> | null;
  openThinking: Cell<TextEntry> | null;
  tools: Map<string, Cell<ToolEntry>>;
  artifacts: Map<string, Cell<ArtifactEntry>>;
  userCollapsed: boolean | null;
  row: TaskHeaderRow | null;
  changed: boolean;
}

export class TimelineStore {
  #rows = $state.raw<readonly TimelineRow[]>([]);
  #banners = $state.raw<readonly Banner[]>([]);
  #taskCount = $state(0);
  #droppedTasks = $state(0);
  #closed = $state(false);
  #conversationMode = $state<string | null>(null);

  readonly #limits: TimelineLimits;
  readonly #scheduler: Scheduler;
  readonly #perf: PerfCounters | undefined;
  readonly #afterFlush: (() => void) | undefined;
  readonly #fallbackMs: number;

  #pending: StreamDataEvent[] = [];
  #frame: unknown = null;
  #timer: unknown = null;
  #needsRebuild = false;
  #tasks = new Map<string, TaskLog>();
  #banner: Banner[] = [];
  #seq = 0;
  /** Events applied since the last write of the state: the next flush counts them as rendered. */
  #applied = 0;
  #disposed = false;

  constructor(options: TimelineOptions = {}) {
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#scheduler = { ...defaultScheduler(), ...options.scheduler };
    this.#perf = options.perf;
    this.#afterFlush = options.afterFlush;
    this.#fallbackMs = options.fallbackMs ?? 250;
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
    return this.#pending.length;
  }

  /** Takes one event off a stream. Connection events are the feed's business and are ignored here. Cheap: O(1). */
  push(event: MurmurStreamEvent): void {
    if (this.#disposed || event.kind === 'connection') return;
    this.#pending.push(event);
    if (this.#perf) this.#perf.framesReceived += 1;
    if (this.#pending.length >= this.#limits.maxPending) this.#applyPending();
    this.#schedule();
  }

  /** Collapses or expands a task's entries. */
  toggle(taskId: string): void {
    const log = this.#tasks.get(taskId);
    if (!log) return;
    log.userCollapsed = !this.#isCollapsed(log, this.#indexOf(taskId));
    log.changed = true;
    this.#needsRebuild = true;
    this.flush();
  }

  dismissBanner(key: string): void {
    this.#banner = this.#banner.filter((b) => b.key !== key);
    this.#banners = this.#banner;
  }

  /** Applies everything pending and writes the state now (the frame callback; tests call it directly). */
  flush = (): void => {
    this.#cancelScheduled();
    if (this.#disposed) return;
    if (this.#pending.length === 0 && !this.#needsRebuild) return;
    const started = this.#scheduler.now();
    this.#applyPending();
    this.#rebuild();
    this.#afterFlush?.();
    const ms = round(this.#scheduler.now() - started);
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
    this.#cancelScheduled();
    this.#pending = [];
    this.#applied = 0;
    this.#tasks = new Map();
    this.#banner = [];
    this.#closed = false;
    this.#droppedTasks = 0;
    this.#rebuild();
  }

  dispose(): void {
    this.#disposed = true;
    this.#cancelScheduled();
    this.#pending = [];
  }

  // --- batching -------------------------------------------------------------------------------------------

  #schedule(): void {
    if (this.#frame === null) this.#frame = this.#scheduler.requestFrame(this.flush);
    if (this.#timer === null) this.#timer = this.#scheduler.setTimer(this.flush, this.#fallbackMs);
  }

  #cancelScheduled(): void {
    if (this.#frame !== null) this.#scheduler.cancelFrame(this.#frame);
    if (this.#timer !== null) this.#scheduler.clearTimer(this.#timer);
    this.#frame = null;
    this.#timer = null;
  }

  #applyPending(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    for (const event of batch) this.#apply(event);
    this.#applied += batch.length;
    this.#needsRebuild = true;
  }

  // --- applying one event ---------------------------------------------------------------------------------

  #apply(event: StreamDataEvent): void {
    switch (event.kind) {
      case 'task': {
        const task = event.response.task;
        const log = this.#log(task.id, task.contextId, task.status.timestamp);
        this.#closeOpen(log);
        this.#setStatus(log, task.status.state, messageText(task.status.message), task.status.timestamp, true);
        for (const artifact of task.artifacts ?? []) this.#artifact(log, artifact, task.status.timestamp);
        return;
      }
      case 'status': {
        const update = event.response.statusUpdate;
        const log = this.#log(update.taskId, update.contextId, update.status.timestamp);
        this.#closeOpen(log);
        this.#setStatus(log, update.status.state, messageText(update.status.message), update.status.timestamp, true);
        return;
      }
      case 'artifact': {
        const update = event.response.artifactUpdate;
        const log = this.#log(update.taskId, update.contextId, null);
        this.#closeOpen(log);
        this.#artifact(log, update.artifact, log.lastAt);
        return;
      }
      case 'message': {
        const message = event.response.message;
        if (event.taskId === null) return;
        const log = this.#log(event.taskId, message.contextId ?? null, null);
        const text = messageText(message);
        if (text) this.#add(log, { kind: 'note', key: this.#key(log), taskId: log.taskId, text, at: null });
        return;
      }
      case 'frame':
        this.#frameEvent(event);
        return;
      default: {
        const unreachable: never = event;
        throw new TypeError(`unknown event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  #frameEvent(event: Extract<StreamDataEvent, { kind: 'frame' }>): void {
    const frame = event.frame;
    // Frames with no task: the session's own.
    switch (frame.frame) {
      case 'gap':
        this.#addBanner('gap', `Events before id ${frame.firstAvailableId} may be gone: the door's replay buffer no longer holds them. Check the task list for what changed.`);
        return;
      case 'lagged':
        this.#addBanner('lagged', `This connection fell behind and lost ${frame.dropped} event${frame.dropped === 1 ? '' : 's'}. The task list shows the current state.`);
        return;
      case 'connection-ack':
        this.#conversationMode = frame.conversationMode;
        return;
      case 'capsule-closed':
        this.#closed = true;
        return;
      default:
        break;
    }
    if (event.taskId === null || !('statusUpdate' in event.response)) return;
    const carrier = event.response.statusUpdate;
    const at = carrier.status.timestamp;
    const log = this.#log(carrier.taskId, carrier.contextId, at);
    // A carrier holds the task's current state (docs/streaming.md, "Murmur frames").
    this.#setStatus(log, carrier.status.state, null, at, false);
    switch (frame.frame) {
      case 'text': {
        if (log.openThinking) this.#finish(log.openThinking, log, 'openThinking');
        let cell = log.openText;
        if (cell === null) {
          if (frame.text === '' && frame.final) return;
          cell = this.#add(log, { kind: 'text', key: this.#key(log), taskId: log.taskId, text: '', omitted: 0, done: false, at }) as Cell<TextEntry>;
          log.openText = cell;
        }
        cell.draft.text += frame.text;
        cell.dirty = true;
        if (frame.final) this.#finish(cell, log, 'openText');
        return;
      }
      case 'thinking': {
        let cell = log.openThinking;
        if (cell === null) {
          cell = this.#add(log, { kind: 'thinking', key: this.#key(log), taskId: log.taskId, text: '', omitted: 0, done: false, at }) as Cell<TextEntry>;
          log.openThinking = cell;
        }
        cell.draft.text += frame.text;
        cell.dirty = true;
        return;
      }
      case 'tool-call-started': {
        this.#closeOpen(log);
        const cell = this.#add(log, {
          kind: 'tool',
          key: this.#key(log),
          taskId: log.taskId,
          toolCallId: frame.toolCallId,
          toolName: frame.toolName,
          input: frame.input,
          output: [],
          omitted: 0,
          result: null,
          at,
        }) as Cell<ToolEntry>;
        log.tools.set(frame.toolCallId, cell);
        return;
      }
      case 'tool-call-progress': {
        const cell = log.tools.get(frame.toolCallId) ?? this.#orphanTool(log, frame.toolCallId, '(tool)', at);
        const output = cell.draft.output;
        const last = output[output.length - 1];
        // Chunks of one stream in a row share one run; a new object, since the old one may be in a snapshot.
        if (last && last.stream === frame.stream) output[output.length - 1] = { stream: last.stream, text: last.text + frame.text };
        else output.push({ stream: frame.stream, text: frame.text });
        cell.dirty = true;
        return;
      }
      case 'artifact': {
        const fields = frame.artifact;
        const known = fields.toolCallId === null ? undefined : log.tools.get(fields.toolCallId);
        const cell = known ?? this.#orphanTool(log, fields.toolCallId, fields.toolName, at);
        cell.draft.result = fields;
        if (cell.draft.toolName === '(tool)') cell.draft.toolName = fields.toolName;
        cell.dirty = true;
        return;
      }
      default: {
        const unreachable: never = frame;
        throw new TypeError(`unknown frame ${JSON.stringify(unreachable)}`);
      }
    }
  }

  #orphanTool(log: TaskLog, toolCallId: string | null, toolName: string, at: string | null): Cell<ToolEntry> {
    this.#closeOpen(log);
    const cell = this.#add(log, { kind: 'tool', key: this.#key(log), taskId: log.taskId, toolCallId, toolName, input: null, output: [], omitted: 0, result: null, at }) as Cell<ToolEntry>;
    if (toolCallId !== null) log.tools.set(toolCallId, cell);
    return cell;
  }

  #artifact(log: TaskLog, artifact: Artifact, at: string | null): void {
    // Each artifact id occurs at most once in a task (seed 000, "Artifacts"): a repeat replaces the entry.
    const existing = log.artifacts.get(artifact.artifactId);
    if (existing && log.cells.includes(existing)) {
      existing.draft.artifact = artifact;
      existing.dirty = true;
      return;
    }
    const cell = this.#add(log, { kind: 'artifact', key: this.#key(log), taskId: log.taskId, artifact, at }) as Cell<ArtifactEntry>;
    log.artifacts.set(artifact.artifactId, cell);
  }

  #setStatus(log: TaskLog, state: TaskState, text: string | null, at: string | null, entry: boolean): void {
    if (entry) {
      this.#add(log, { kind: 'status', key: this.#key(log), taskId: log.taskId, state, text, at });
      log.statusText = text;
    }
    if (log.state !== state || entry) log.changed = true;
    log.state = state;
    if (at !== null) {
      log.lastAt = at;
      log.firstAt ??= at;
    }
  }

  #closeOpen(log: TaskLog): void {
    if (log.openThinking) this.#finish(log.openThinking, log, 'openThinking');
    if (log.openText) this.#finish(log.openText, log, 'openText');
  }

  #finish(cell: Cell<TextEntry>, log: TaskLog, slot: 'openText' | 'openThinking'): void {
    cell.draft.done = true;
    cell.dirty = true;
    log[slot] = null;
  }

  #log(taskId: string, contextId: string | null, at: string | null): TaskLog {
    let log = this.#tasks.get(taskId);
    if (!log) {
      log = {
        taskId,
        contextId,
        state: null,
        statusText: null,
        firstAt: at,
        lastAt: at,
        cells: [],
        dropped: 0,
        openText: null,
        openThinking: null,
        tools: new Map(),
        artifacts: new Map(),
        userCollapsed: null,
        row: null,
        changed: true,
      };
      this.#tasks.set(taskId, log);
      if (this.#tasks.size > this.#limits.maxTasks) {
        const oldest = this.#tasks.keys().next().value as string;
        this.#tasks.delete(oldest);
        this.#droppedTasks += 1;
      }
    }
    if (log.contextId === null && contextId !== null) {
      log.contextId = contextId;
      log.changed = true;
    }
    return log;
  }

  #add(log: TaskLog, entry: Entry): Cell {
    const cell: Cell = { draft: entry, entry, dirty: true };
    log.cells.push(cell);
    log.changed = true;
    const excess = log.cells.length - this.#limits.maxEntriesPerTask;
    if (excess > 0) {
      const gone = log.cells.splice(0, excess);
      log.dropped += excess;
      for (const old of gone) {
        if (old.draft.kind === 'tool' && old.draft.toolCallId !== null) log.tools.delete(old.draft.toolCallId);
        if (old === log.openText) log.openText = null;
        if (old === log.openThinking) log.openThinking = null;
      }
    }
    return cell;
  }

  #key(log: TaskLog): string {
    this.#seq += 1;
    return `${log.taskId}#${this.#seq}`;
  }

  #addBanner(kind: Banner['kind'], text: string): void {
    this.#seq += 1;
    this.#banner = [...this.#banner, { key: `banner#${this.#seq}`, kind, text, atMs: Date.now() }].slice(-this.#limits.maxBanners);
    this.#needsRebuild = true;
  }

  // --- writing the state ----------------------------------------------------------------------------------

  #indexOf(taskId: string): number {
    let i = 0;
    for (const id of this.#tasks.keys()) {
      if (id === taskId) return i;
      i += 1;
    }
    return -1;
  }

  #isCollapsed(log: TaskLog, index: number): boolean {
    if (log.userCollapsed !== null) return log.userCollapsed;
    const finished = log.state !== null && isTerminalState(log.state);
    return finished && index < this.#tasks.size - this.#limits.keepOpen;
  }

  #rebuild(): void {
    this.#needsRebuild = false;
    const rows: TimelineRow[] = [];
    let index = 0;
    for (const log of this.#tasks.values()) {
      const collapsed = this.#isCollapsed(log, index);
      index += 1;
      this.#materialize(log);
      if (log.changed || log.row === null || log.row.collapsed !== collapsed || log.row.entryCount !== log.cells.length + log.dropped) {
        log.row = {
          kind: 'task',
          key: log.taskId,
          taskId: log.taskId,
          contextId: log.contextId,
          state: log.state,
          statusText: log.statusText,
          firstAt: log.firstAt,
          lastAt: log.lastAt,
          entryCount: log.cells.length + log.dropped,
          collapsed,
        };
        log.changed = false;
      }
      rows.push(log.row);
      if (collapsed) continue;
      if (log.dropped > 0) rows.push({ kind: 'more', key: `${log.taskId}#more`, taskId: log.taskId, omitted: log.dropped });
      for (const cell of log.cells) rows.push(cell.entry);
    }
    this.#rows = rows;
    this.#banners = this.#banner;
    this.#taskCount = this.#tasks.size;
  }

  /** Turns the batch's changed drafts into new snapshots, trimming long texts once per batch rather than per chunk. */
  #materialize(log: TaskLog): void {
    const max = this.#limits.maxTextChars;
    for (const cell of log.cells) {
      if (!cell.dirty) continue;
      cell.dirty = false;
      const draft = cell.draft;
      if ((draft.kind === 'text' || draft.kind === 'thinking') && draft.text.length > max) {
        draft.omitted += draft.text.length - max;
        draft.text = draft.text.slice(-max);
      }
      if (draft.kind === 'tool') trimOutput(draft, max);
      cell.entry = draft.kind === 'tool' ? { ...draft, output: [...draft.output] } : { ...draft };
    }
  }
}

function trimOutput(draft: ToolEntry, max: number): void {
  let total = 0;
  for (const chunk of draft.output) total += chunk.text.length;
  while (total > max && draft.output.length > 0) {
    const first = draft.output[0];
    const excess = total - max;
    if (first.text.length <= excess) {
      draft.output.shift();
      total -= first.text.length;
      draft.omitted += first.text.length;
    } else {
      draft.output[0] = { stream: first.stream, text: first.text.slice(excess) };
      total -= excess;
      draft.omitted += excess;
    }
  }
}

function messageText(message: Message | undefined): string | null {
  if (!message) return null;
  const text = joinedText(message);
  return text === '' ? null : text;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
