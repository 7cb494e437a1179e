/**
 * One task's durable record for its page (docs/console.md): read from its door's record plane, else (the door gone)
 * from `mur console`'s record API; reloadable.
 */
import { isTerminalState, type TaskRecordEntry, type TaskRecordMember, type TaskRecordSummary } from '@murmur/protocol';
import type { Problem } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';
import { buildTrace, type Trace } from '../trace/trace-spans.js';
import { type RecordRow, recordRows } from './record-rows.js';
import { type PartialRecord, type RecordDoor, readTaskRecord } from './records.js';

/** A record as read: null `task` when neither the door nor the records on this host hold it. */
interface ReadRecord {
  task: TaskRecordSummary | null;
  /** Where it was read: the door's record plane, or mur console's records (the post-mortem path). */
  from: 'door' | 'console' | null;
  entries: TaskRecordEntry[];
  members: ReadonlyMap<string, TaskRecordMember>;
  /** Every entry the record holds, while its further pages are still being read; null once it is read whole. */
  partOf: number | null;
}

const NO_MEMBERS: ReadonlyMap<string, TaskRecordMember> = new Map();

export class TaskRecordView {
  /** The record on screen; it stays while the record is read again. */
  readonly #record = new Loader<ReadRecord>();
  readonly #rows = $derived.by(() => {
    const task = this.task;
    return task ? recordRows(this.entries, task.createdAt, this.members) : [];
  });
  /** The record as a trace; what still runs reaches the time the record was read. */
  readonly #trace = $derived.by((): Trace | null => {
    const task = this.task;
    return task ? buildTrace(task, this.entries, this.members, { nowMs: this.#record.loadedAt ?? Date.now() }) : null;
  });
  /** A change seen while a read was under way: read again once it lands, unless it read an ended task. */
  #stale = false;
  readonly taskId: string;
  readonly #door: (() => RecordDoor | null) | undefined;

  /** `door`: the door the task is on and its token now, read first (docs/console.md, "Every door serves its record"). */
  constructor(taskId: string, options: { door?: () => RecordDoor | null } = {}) {
    this.taskId = taskId;
    this.#door = options.door;
  }

  /** Where the record on screen was read: its door, or mur console's records. */
  get from(): 'door' | 'console' | null {
    return this.#record.value?.from ?? null;
  }

  get task(): TaskRecordSummary | null {
    return this.#record.value?.task ?? null;
  }
  get entries(): TaskRecordEntry[] {
    return this.#record.value?.entries ?? [];
  }
  /** The formation member tasks its call-member tool calls started, nested (docs/console.md, "Formations"). */
  get members(): ReadonlyMap<string, TaskRecordMember> {
    return this.#record.value?.members ?? NO_MEMBERS;
  }
  /** The record's rows, member tasks nested under the tool calls that started them. */
  get rows(): RecordRow[] {
    return this.#rows;
  }
  /** While a long record's further pages are read: every entry it holds (the entries so far are fewer). */
  get partOf(): number | null {
    return this.#record.value?.partOf ?? null;
  }
  /** The record as nested spans (lib/trace-spans.ts); null until read. */
  get trace(): Trace | null {
    return this.#trace;
  }
  /** Neither the door nor the records on this host hold the task (a door gone whose records are elsewhere, or removed). */
  get missing(): boolean {
    return this.#record.value !== null && this.#record.value.task === null;
  }
  get loading(): boolean {
    return this.#record.loading;
  }
  get problem(): Problem | null {
    return this.#record.problem;
  }
  /** Tokens over the record's turns, once drivers report usage (null when no turn reported any). */
  get tokens(): { input: number; output: number } | null {
    let input = 0;
    let output = 0;
    let reported = false;
    for (const e of this.entries) {
      if (e.kind !== 'turn' || (e.inputTokens === null && e.outputTokens === null)) continue;
      reported = true;
      input += e.inputTokens ?? 0;
      output += e.outputTokens ?? 0;
    }
    return reported ? { input, output } : null;
  }

  /** The first turn's time to first token (the task's), when recorded. @unit ms */
  get firstTokenMs(): number | null {
    const first = this.entries.find((e) => e.kind === 'turn');
    return first?.kind === 'turn' && first.firstTokenMs !== null ? first.offsetMs + first.firstTokenMs : null;
  }

  /** Reads the record (every page, each with its member tasks' records); only the newest read lands. */
  async load(): Promise<void> {
    this.#stale = false;
    await this.#record.load(async (signal) => {
      // A long record is shown as its pages come: the first page's entries draw while the rest are read.
      const onPage = (partial: PartialRecord) => {
        if (!signal.aborted) this.#record.set({ ...partial, partOf: partial.total });
      };
      const record = await readTaskRecord(this.taskId, { signal, door: this.#door?.() ?? null, onPage });
      return record
        ? { task: record.task, from: record.from, entries: record.entries, members: record.members, partOf: null }
        : { task: null, from: null, entries: [], members: NO_MEMBERS, partOf: null };
    });
    if (this.#stale && !this.#record.loading) {
      this.#stale = false;
      await this.refresh();
    }
  }

  /**
   * The task changed (its state, as its door or stream says): reads the record again, unless the record on screen is
   * of an ended task, which no longer changes. A change during a read is read once that read lands, so a finished
   * task's page reads its record once (issue 37), not once per answer it gets while the first read is under way.
   */
  async refresh(): Promise<void> {
    if (this.#record.loading) {
      this.#stale = true;
      return;
    }
    if (this.task && isTerminalState(this.task.state)) return;
    await this.load();
  }

  dispose(): void {
    this.#record.reset({ keepProblem: true });
  }
}
