/**
 * One task's durable record for its page (docs/console.md): read from its door's record plane, else (the door gone)
 * from `mur console`'s record API; reloadable.
 */
import type { TaskRecordEntry, TaskRecordMember, TaskRecordSummary } from '@murmur/protocol';
import type { Problem } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';
import { type RecordRow, recordRows, waterfallSpanMs } from './record-rows.js';
import { type RecordDoor, readTaskRecord } from './records.js';

/** A record as read: null `task` when neither the door nor the records on this host hold it. */
interface ReadRecord {
  task: TaskRecordSummary | null;
  /** Where it was read: the door's record plane, or mur console's records (the post-mortem path). */
  from: 'door' | 'console' | null;
  entries: TaskRecordEntry[];
  members: ReadonlyMap<string, TaskRecordMember>;
}

const NO_MEMBERS: ReadonlyMap<string, TaskRecordMember> = new Map();

export class TaskRecordView {
  /** The record on screen; it stays while the record is read again. */
  readonly #record = new Loader<ReadRecord>();
  readonly #rows = $derived.by(() => {
    const task = this.task;
    return task ? recordRows(this.entries, task.createdAt, this.members) : [];
  });
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

  /** The waterfall's axis: the task's duration once ended, else up to its latest row (record-rows.ts). @unit ms */
  get spanMs(): number {
    return waterfallSpanMs(this.#rows, this.task?.durationMs ?? null);
  }

  /** Reads the record (every page, each with its member tasks' records); only the newest read lands. */
  async load(): Promise<void> {
    await this.#record.load(async (signal) => {
      const record = await readTaskRecord(this.taskId, { signal, door: this.#door?.() ?? null });
      return record ? { task: record.task, from: record.from, entries: record.entries, members: record.members } : { task: null, from: null, entries: [], members: NO_MEMBERS };
    });
  }

  dispose(): void {
    this.#record.reset({ keepProblem: true });
  }
}
