/** One task's durable record for its page (docs/console.md): read from `mur console`'s record API, reloadable. */
import type { TaskRecordEntry, TaskRecordSummary } from '@murmur/protocol';
import { describeError, isAbort, type Problem } from './errors.js';
import { MAX_NESTING, type MemberRecord, memberTaskIds, type RecordRow, recordRows, rowsSpanMs } from './record-rows.js';
import { type Fetch, readTaskRecord } from './records.js';

/** At most this many member tasks' records are read for one record's waterfall. */
const MEMBER_RECORDS_MAX = 50;

export class TaskRecordView {
  #task = $state.raw<TaskRecordSummary | null>(null);
  #entries = $state.raw<TaskRecordEntry[]>([]);
  #members = $state.raw<ReadonlyMap<string, MemberRecord>>(new Map());
  #missing = $state(false);
  #loading = $state(false);
  #problem = $state.raw<Problem | null>(null);
  readonly taskId: string;
  readonly #fetch: Fetch | undefined;
  #request = 0;
  #abort: AbortController | null = null;

  constructor(taskId: string, options: { fetch?: Fetch } = {}) {
    this.taskId = taskId;
    this.#fetch = options.fetch;
  }

  get task(): TaskRecordSummary | null {
    return this.#task;
  }
  get entries(): TaskRecordEntry[] {
    return this.#entries;
  }
  /** The formation member tasks its call-member tool calls started, nested (docs/console.md, "Formations"). */
  get members(): ReadonlyMap<string, MemberRecord> {
    return this.#members;
  }
  /** The record's rows, member tasks nested under the tool calls that started them. */
  get rows(): RecordRow[] {
    return this.#task ? recordRows(this.#entries, this.#task.createdAt, this.#members) : [];
  }
  /** No records folder on this host holds the task (a door on another machine, or records removed). */
  get missing(): boolean {
    return this.#missing;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get problem(): Problem | null {
    return this.#problem;
  }
  /** The record's span: the task's duration once ended, else up to its latest entry. @unit ms */
  /** Tokens over the record's turns, once drivers report usage (null when no turn reported any). */
  get tokens(): { input: number; output: number } | null {
    let input = 0;
    let output = 0;
    let reported = false;
    for (const e of this.#entries) {
      if (e.kind !== 'turn' || (e.inputTokens === null && e.outputTokens === null)) continue;
      reported = true;
      input += e.inputTokens ?? 0;
      output += e.outputTokens ?? 0;
    }
    return reported ? { input, output } : null;
  }

  /** The first turn's time to first token (the task's), when recorded. @unit ms */
  get firstTokenMs(): number | null {
    const first = this.#entries.find((e) => e.kind === 'turn');
    return first?.kind === 'turn' && first.firstTokenMs !== null ? first.offsetMs + first.firstTokenMs : null;
  }

  get spanMs(): number {
    const last = this.#entries.reduce((max, e) => Math.max(max, e.offsetMs + ('durationMs' in e && e.durationMs !== null ? e.durationMs : 0)), 0);
    const nested = this.#members.size > 0 && this.#task ? rowsSpanMs(this.rows) : 0;
    return Math.max(this.#task?.durationMs ?? 0, last, nested, 1);
  }

  async load(): Promise<void> {
    const request = ++this.#request;
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    this.#loading = true;
    try {
      const record = await readTaskRecord(this.taskId, { fetch: this.#fetch, signal: abort.signal });
      if (request !== this.#request) return;
      const members = record ? await this.#readMembers(record.entries, abort.signal) : new Map<string, MemberRecord>();
      if (request !== this.#request) return;
      this.#missing = record === null;
      this.#task = record?.task ?? null;
      this.#entries = record?.entries ?? [];
      this.#members = members;
      this.#problem = null;
    } catch (error) {
      if (request !== this.#request || isAbort(error)) return;
      this.#problem = describeError(error);
    } finally {
      if (request === this.#request) this.#loading = false;
    }
  }

  /** The member tasks started from these entries, and theirs in turn, MAX_NESTING levels deep. */
  async #readMembers(entries: TaskRecordEntry[], signal: AbortSignal): Promise<Map<string, MemberRecord>> {
    const members = new Map<string, MemberRecord>();
    let wanted = memberTaskIds(entries);
    for (let depth = 1; depth <= MAX_NESTING && wanted.length > 0; depth++) {
      const ids = [...new Set(wanted)].filter((id) => !members.has(id)).slice(0, MEMBER_RECORDS_MAX - members.size);
      const read = await Promise.all(ids.map((id) => readTaskRecord(id, { fetch: this.#fetch, signal, pageLimit: 2 })));
      wanted = [];
      for (const record of read) {
        if (!record) continue;
        members.set(record.task.taskId, { task: record.task, entries: record.entries });
        wanted.push(...memberTaskIds(record.entries));
      }
    }
    return members;
  }

  dispose(): void {
    this.#request += 1;
    this.#abort?.abort();
  }
}
