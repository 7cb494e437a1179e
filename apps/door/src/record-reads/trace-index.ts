import { type FileHandle, open } from 'node:fs/promises';
import { decodeTraceLine, type UndecodedLine } from '../records/trace-lines.js';
import { TRACE_TYPES, type TraceLine, type TraceLineOf, type TraceType } from '../records/trace-schema.js';
import { AppendedLines, eachLine } from './appended-lines.js';

/** One task's lines in a trace index, and what its summary counts without reading them. */
export interface IndexedTask {
  /** The numbers of its lines in the index, in the order written. */
  readonly lines: number[];
  turns: number;
  toolCalls: number;
  callsMember: boolean;
  delegates: boolean;
}

/** Records read light, with the numbers of their lines. */
interface LightRead {
  lines: number[];
  records: TraceLine[];
}

/** Tools whose input and output a light read keeps: they link a member call or a delegation to its tool call. */
const LINKING_TOOLS: ReadonlySet<string> = new Set(['call-member', 'delegate-task']);

/** How a light read leaves a record: a tool call's input and output dropped, except a linking tool's. */
function lighten(record: TraceLine): TraceLine {
  if (record.type === 'skill_call') return { ...record, input: null, output: '' };
  if (record.type !== 'tool_call' || LINKING_TOOLS.has(record.tool)) return record;
  return { ...record, input: null, output: '' };
}

const READ_BYTES = 1 << 20;

interface ReadOptions {
  light?: boolean;
  handle?: FileHandle;
}
const TYPE_CODE = new Map<TraceType, number>(TRACE_TYPES.map((type, code) => [type, code]));

/** Typed columns that grow by doubling: a line costs 13 bytes in them. */
class LineColumns {
  offsets = new Float64Array(1024);
  lengths = new Uint32Array(1024);
  types = new Uint8Array(1024);
  count = 0;

  push(offset: number, length: number, type: number): number {
    if (this.count === this.offsets.length) {
      const grow = <T extends Float64Array | Uint32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
        const next = make(old.length * 2);
        next.set(old);
        return next;
      };
      this.offsets = grow(this.offsets, (n) => new Float64Array(n));
      this.lengths = grow(this.lengths, (n) => new Uint32Array(n));
      this.types = grow(this.types, (n) => new Uint8Array(n));
    }
    this.offsets[this.count] = offset;
    this.lengths[this.count] = length;
    this.types[this.count] = type;
    return this.count++;
  }
}

/**
 * A session's trace.jsonl indexed, never held (docs/console.md, "Read through an index, never whole"): where each
 * decoded line is, its type, and each task's lines. `refresh()` reads what was appended since; the reads return the
 * lines asked for, decoded, by position.
 */
export class TraceIndex {
  readonly tasks = new Map<string, IndexedTask>();
  /** The peer handles' lines (`peer_handle_mint`, `_redeem`, `_refused`). */
  readonly handleLines: number[] = [];
  /** The lines of the session's artifact records: artifact_staged, artifact_pulled, tools_refreshed (docs/artifacts.md). */
  readonly artifactLines: number[] = [];
  /** Lines left out, by reason: cut by a crash mid-write, a type or fields this door does not know. */
  readonly undecoded: Record<UndecodedLine, number> = { 'not-json': 0, 'unknown-type': 0, 'off-schema': 0 };
  #columns = new LineColumns();
  /** The last task read light, while it has no new lines: paging through one task reads its records once. */
  #lastLight: { task: IndexedTask; lineCount: number; read: LightRead } | null = null;
  readonly #appended: AppendedLines;
  #refreshing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {
    this.#appended = new AppendedLines(file);
  }

  /**
   * The records this index holds, read afresh: the lines appended since the last refresh (the whole file if replaced).
   * `keep`: a task whose records are about to be read light: its lines appended are kept light as they are indexed, so
   * light() does not decode them a second time (a cold page of a 10,000-line task decoded each of its lines twice).
   */
  refresh(options: { keep?: string } = {}): Promise<this> {
    const next = this.#refreshing.then(() => this.#indexAppended(options.keep));
    this.#refreshing = next.catch(() => undefined);
    return next.then(() => this);
  }

  typeOf(line: number): TraceType {
    return TRACE_TYPES[this.#columns.types[line]];
  }

  /** The length of a line in bytes, without its newline. */
  bytesOf(line: number): number {
    return this.#columns.lengths[line];
  }

  /**
   * The records of `lines`, in the order given, read by position in runs of adjacent lines; `light` as lighten() says.
   * `handle`: an open handle on this trace (openTrace()), used and left open, so that reading many tasks in a row (a
   * rollup) does not open and close the file once each.
   */
  async *read(lines: readonly number[], options: ReadOptions = {}): AsyncGenerator<{ line: number; record: TraceLine }> {
    if (lines.length === 0) return;
    let handle: FileHandle;
    if (options.handle !== undefined) handle = options.handle;
    else {
      const opened = await this.openTrace();
      if (opened === null) return;
      handle = opened;
    }
    const { offsets, lengths } = this.#columns;
    try {
      let i = 0;
      while (i < lines.length) {
        // A run: lines that follow each other in the file, up to READ_BYTES (one line may be longer alone).
        let j = i + 1;
        let bytes = lengths[lines[i]];
        while (j < lines.length && offsets[lines[j]] === offsets[lines[j - 1]] + lengths[lines[j - 1]] + 1 && bytes + lengths[lines[j]] + 1 <= READ_BYTES) {
          bytes += lengths[lines[j]] + 1;
          j++;
        }
        const buffer = Buffer.allocUnsafe(bytes);
        const { bytesRead } = await handle.read(buffer, 0, bytes, offsets[lines[i]]);
        let at = 0;
        for (let k = i; k < j; k++) {
          const n = lines[k];
          const end = at + lengths[n];
          if (end > bytesRead) return;
          const decoded = decodeTraceLine(buffer.toString('utf8', at, end));
          at = end + 1;
          if (typeof decoded === 'string') continue;
          yield { line: n, record: options.light ? lighten(decoded) : decoded };
        }
        i = j;
      }
    } finally {
      if (handle !== options.handle) await handle.close();
    }
  }

  /** A handle on the trace for read()'s `handle`, which the caller closes; null when the file cannot be opened. */
  async openTrace(): Promise<FileHandle | null> {
    try {
      return await open(this.file, 'r');
    } catch {
      return null;
    }
  }

  /** The records of `lines`, read whole into one array: for lines whose records are small or light. */
  async readAll(lines: readonly number[], options: ReadOptions = {}): Promise<{ lines: number[]; records: TraceLine[] }> {
    const read = { lines: [] as number[], records: [] as TraceLine[] };
    for await (const { line, record } of this.read(lines, options)) {
      read.lines.push(line);
      read.records.push(record);
    }
    return read;
  }

  /**
   * A task's every record, light (lighten() above); the last task read is kept until it gains a line. `handle`: as
   * read()'s.
   */
  async light(task: IndexedTask, handle?: FileHandle): Promise<{ lines: number[]; records: TraceLine[] }> {
    const last = this.#lastLight;
    if (last && last.task === task && last.lineCount === task.lines.length) return last.read;
    const lineCount = task.lines.length;
    const read = await this.readAll(task.lines.slice(0, lineCount), { light: true, handle });
    this.#lastLight = { task, lineCount, read };
    return read;
  }

  /** The first record of `type` among a task's lines, read alone; null when it has none. */
  async first<K extends TraceType>(task: IndexedTask, type: K): Promise<TraceLineOf<K> | null> {
    const line = task.lines.find((n) => this.typeOf(n) === type);
    if (line === undefined) return null;
    for await (const { record } of this.read([line])) return record as TraceLineOf<K>;
    return null;
  }

  /** Every line of `task` of one of `types`. */
  linesOf(task: IndexedTask, types: readonly TraceType[]): number[] {
    const codes = new Set(types.map((t) => TYPE_CODE.get(t)));
    return task.lines.filter((n) => codes.has(this.#columns.types[n]));
  }

  #reset(): void {
    this.#columns = new LineColumns();
    this.#lastLight = null;
    this.tasks.clear();
    this.handleLines.length = 0;
    this.artifactLines.length = 0;
    for (const reason of Object.keys(this.undecoded) as UndecodedLine[]) this.undecoded[reason] = 0;
  }

  async #indexAppended(keep: string | undefined): Promise<void> {
    const kept: LightRead | null = keep === undefined ? null : { lines: [], records: [] };
    await this.#appended.read(
      () => this.#reset(),
      (lines, offset) => {
        for (const { line, offset: at } of eachLine(lines, offset)) this.#indexLine(line, at, keep, kept);
      },
    );
    if (keep !== undefined && kept !== null) this.#keepLight(keep, kept);
  }

  /** What a refresh with `keep` indexed of that task becomes its light read, if it holds (with the last one) every line of it. */
  #keepLight(taskId: string, kept: LightRead): void {
    const task = this.tasks.get(taskId);
    if (!task || kept.lines.length === 0) return;
    const lineCount = task.lines.length;
    const last = this.#lastLight;
    if (kept.lines.length === lineCount) this.#lastLight = { task, lineCount, read: kept };
    else if (last && last.task === task && last.lineCount + kept.lines.length === lineCount)
      this.#lastLight = { task, lineCount, read: { lines: [...last.read.lines, ...kept.lines], records: [...last.read.records, ...kept.records] } };
  }

  #indexLine(bytes: Buffer, offset: number, keep: string | undefined, kept: LightRead | null): void {
    if (bytes.length === 0) return;
    const record = decodeTraceLine(bytes.toString('utf8'));
    if (typeof record === 'string') {
      this.undecoded[record] += 1;
      return;
    }
    const line = this.#columns.push(offset, bytes.length, TYPE_CODE.get(record.type) as number);
    if (record.type === 'peer_handle_mint' || record.type === 'peer_handle_redeem' || record.type === 'peer_handle_refused') this.handleLines.push(line);
    if (record.type === 'artifact_staged' || record.type === 'artifact_pulled' || record.type === 'tools_refreshed') this.artifactLines.push(line);
    if (!('task_id' in record)) return;
    let task = this.tasks.get(record.task_id);
    if (!task) {
      task = { lines: [], turns: 0, toolCalls: 0, callsMember: false, delegates: false };
      this.tasks.set(record.task_id, task);
    }
    task.lines.push(line);
    if (kept !== null && record.task_id === keep) {
      kept.lines.push(line);
      kept.records.push(lighten(record));
    }
    if (record.type === 'inference') task.turns += 1;
    else if (record.type === 'skill_call') task.toolCalls += 1;
    else if (record.type === 'tool_call') {
      task.toolCalls += 1;
      if (record.tool === 'call-member') task.callsMember = true;
    } else if (record.type === 'delegation_start' || record.type === 'delegation') task.delegates = true;
  }
}

/** The indexes mur console and a door keep, the most recently read last; at most INDEXES_KEPT files. */
const kept = new Map<string, TraceIndex>();
const INDEXES_KEPT = 64;

/** Whether a trace file's index is kept: asking for it then reads only what was appended since. */
export const traceIndexKept = (file: string): boolean => kept.has(file);

/** The index of a trace file, brought up to date with what was appended since it was last read. */
export function traceIndex(file: string, options: { keep?: string } = {}): Promise<TraceIndex> {
  let index = kept.get(file);
  if (index) kept.delete(file);
  else index = new TraceIndex(file);
  kept.set(file, index);
  if (kept.size > INDEXES_KEPT) kept.delete(kept.keys().next().value as string);
  return index.refresh(options);
}
