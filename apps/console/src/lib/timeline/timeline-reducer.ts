/**
 * Events → the timeline's model: tasks in arrival order, each with its entries (statuses, text and thinking blocks,
 * tool calls with their output, artifacts, notes), plus the session's banners and flags. No Svelte, no DOM, no
 * timers: given the same events (and clock) it builds the same model, so it is tested event by event.
 *
 * The model is mutable on purpose, to apply 2,000 events/s: each entry is a Cell whose `draft` the events change;
 * timeline-materializer.ts turns changed drafts into new immutable snapshots once per frame.
 * Text chunks are coalesced into one block per inference call; entries per task and tasks are capped (the oldest
 * go, with a count of what went).
 */
import type { FrameEvent, StreamDataEvent } from '@murmur/client';
import { type Artifact, type Message, messageText as joinedText, type QuotaWindowFrameFields, type TaskState } from '@murmur/protocol';
import type { ArtifactEntry, Banner, Entry, TaskHeaderRow, TextEntry, ToolEntry } from './timeline-rows.js';

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

const DEFAULT_LIMITS: TimelineLimits = {
  maxTasks: 200,
  maxEntriesPerTask: 400,
  maxTextChars: 16_384,
  keepOpen: 3,
  maxBanners: 5,
  maxPending: 20_000,
};

/** A mutable slot whose `entry` snapshot is replaced (never mutated) when the slot changes. */
export interface Cell<E extends Entry = Entry> {
  draft: E;
  entry: E;
  /** The draft changed since `entry` was taken. */
  dirty: boolean;
}

/** One task's part of the model. */
export interface TaskLog {
  taskId: string;
  contextId: string | null;
  state: TaskState | null;
  statusText: string | null;
  firstAt: string | null;
  lastAt: string | null;
  cells: Cell[];
  /** Entries dropped from the start to stay within maxEntriesPerTask. */
  dropped: number;
  openText: Cell<TextEntry> | null;
  openThinking: Cell<TextEntry> | null;
  tools: Map<string, Cell<ToolEntry>>;
  artifacts: Map<string, Cell<ArtifactEntry>>;
  /** The operator's choice; null follows the rule (finished and not among the newest keepOpen: collapsed). */
  userCollapsed: boolean | null;
  /** The last header row materialized, kept while nothing it shows changed. */
  row: TaskHeaderRow | null;
  /** Something the header row shows changed since `row` was built. */
  changed: boolean;
}

export interface TimelineModel {
  /** In arrival order: the first task seen first. */
  readonly tasks: Map<string, TaskLog>;
  readonly banners: readonly Banner[];
  /** Tasks dropped from the start to stay within maxTasks. */
  readonly droppedTasks: number;
  /** The capsule closed its stream (capsule-closed). */
  readonly closed: boolean;
  /** `lifecycle.conversation` from the connection-ack, once it came. */
  readonly conversationMode: string | null;
}

export interface TimelineReducerOptions {
  limits?: Partial<TimelineLimits>;
  /** The clock of banner times. @default Date.now @unit ms */
  now?: () => number;
}

export class TimelineReducer implements TimelineModel {
  readonly limits: TimelineLimits;
  tasks = new Map<string, TaskLog>();
  banners: readonly Banner[] = [];
  droppedTasks = 0;
  closed = false;
  conversationMode: string | null = null;
  readonly #now: () => number;
  #seq = 0;

  constructor(options: TimelineReducerOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#now = options.now ?? Date.now;
  }

  /** Forgets every task, banner and flag (the connection-ack's conversation mode stays). */
  reset(): void {
    this.tasks = new Map();
    this.banners = [];
    this.closed = false;
    this.droppedTasks = 0;
  }

  /** Collapses or expands a task's entries, whatever the rule would say. */
  setCollapsed(taskId: string, collapsed: boolean): void {
    const log = this.tasks.get(taskId);
    if (!log) return;
    log.userCollapsed = collapsed;
    log.changed = true;
  }

  /** A gap the console itself knows of (not a `gap` frame): shown as a gap banner. */
  noteGap(text: string): void {
    this.#addBanner('gap', text);
  }

  dismissBanner(key: string): void {
    this.banners = this.banners.filter((b) => b.key !== key);
  }

  apply(event: StreamDataEvent): void {
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

  #frameEvent(event: FrameEvent): void {
    const frame = event.frame;
    // Frames with no task: the session's own.
    switch (frame.frame) {
      case 'gap':
        this.#addBanner(
          'gap',
          `Events before id ${frame.firstAvailableId} may be gone: the door's replay buffer no longer holds them. Check the task list for what changed.`,
        );
        return;
      case 'lagged':
        this.#addBanner(
          'lagged',
          `This connection fell behind and lost ${frame.dropped} event${frame.dropped === 1 ? '' : 's'}. The task list shows the current state.`,
        );
        return;
      case 'connection-ack':
        this.conversationMode = frame.conversationMode;
        return;
      case 'capsule-closed':
        this.closed = true;
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
        if (log.openThinking) finish(log.openThinking, log, 'openThinking');
        let cell = log.openText;
        if (cell === null) {
          if (frame.text === '' && frame.final) return;
          cell = this.#add(log, { kind: 'text', key: this.#key(log), taskId: log.taskId, text: '', omitted: 0, done: false, at }) as Cell<TextEntry>;
          log.openText = cell;
        }
        cell.draft.text += frame.text;
        cell.dirty = true;
        if (frame.final) finish(cell, log, 'openText');
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
      // A harness capsule's (transport: process): its subscription windows and a predicted next prompt, as notes.
      case 'quota':
        this.#closeOpen(log);
        this.#add(log, { kind: 'note', key: this.#key(log), taskId: log.taskId, text: quotaText(frame.windows), at });
        return;
      case 'suggested-prompt':
        this.#closeOpen(log);
        this.#add(log, { kind: 'note', key: this.#key(log), taskId: log.taskId, text: `suggested next prompt: ${frame.text}`, at });
        return;
      default: {
        const unreachable: never = frame;
        throw new TypeError(`unknown frame ${JSON.stringify(unreachable)}`);
      }
    }
  }

  #orphanTool(log: TaskLog, toolCallId: string | null, toolName: string, at: string | null): Cell<ToolEntry> {
    this.#closeOpen(log);
    const cell = this.#add(log, {
      kind: 'tool',
      key: this.#key(log),
      taskId: log.taskId,
      toolCallId,
      toolName,
      input: null,
      output: [],
      omitted: 0,
      result: null,
      at,
    }) as Cell<ToolEntry>;
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
    if (log.openThinking) finish(log.openThinking, log, 'openThinking');
    if (log.openText) finish(log.openText, log, 'openText');
  }

  #log(taskId: string, contextId: string | null, at: string | null): TaskLog {
    let log = this.tasks.get(taskId);
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
      this.tasks.set(taskId, log);
      if (this.tasks.size > this.limits.maxTasks) {
        const oldest = this.tasks.keys().next().value as string;
        this.tasks.delete(oldest);
        this.droppedTasks += 1;
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
    const excess = log.cells.length - this.limits.maxEntriesPerTask;
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
    this.banners = [...this.banners, { key: `banner#${this.#seq}`, kind, text, atMs: this.#now() }].slice(-this.limits.maxBanners);
  }
}

function finish(cell: Cell<TextEntry>, log: TaskLog, slot: 'openText' | 'openThinking'): void {
  cell.draft.done = true;
  cell.dirty = true;
  log[slot] = null;
}

/** A status message's text, or null when it has none. */
function messageText(message: Message | undefined): string | null {
  const text = joinedText(message);
  return text === '' ? null : text;
}

/** A quota frame's windows in one line: `quota: five-hour 42% used (warning), resets 2026-10-20T15:00:00Z; seven-day 10% used`. */
function quotaText(windows: readonly QuotaWindowFrameFields[]): string {
  const one = (w: QuotaWindowFrameFields) =>
    [
      w.name,
      w.used === undefined ? null : `${Math.round(w.used * 100)}% used`,
      w.state === undefined ? null : `(${w.state})`,
      w.resetsAt === undefined ? null : `resets ${w.resetsAt}`,
    ]
      .filter((part) => part !== null)
      .join(' ');
  return `quota: ${windows.map(one).join('; ')}`;
}
