import { isId } from '@murmur/protocol';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { MetaRow } from './meta.entity.js';
import { sqliteDatabaseOf } from './sqlite-driver.js';
import { StoreError } from './store-error.js';
import { TaskRow } from './task.entity.js';
import { TaskCache } from './task-cache.js';
import { type RawTaskRow, TASK_COLUMNS } from '../records/task-table.js';
import { fromRawRow } from './task-row-codec.js';
import { TaskView } from './task-view.js';
import { TaskWriter } from './task-writer.js';

/** The settle message a task left live by a crash gets when its records are reopened. */
const SETTLED_ON_REOPEN = 'the session ended before this task did; settled when its records were reopened';

const storeError = (id: string, error: unknown): StoreError =>
  new StoreError(`the task store could not record task ${id}: ${(error as Error).message}`, { cause: error });

/**
 * The session's durable task store: SQLite through TypeORM, written through before any change is reported. Live
 * tasks and recently used ended ones are mirrored in memory within a byte budget (TaskCache); `read` finds an older
 * one in SQLite. Callers read through `viewFor(caller)`.
 */
export class TaskStore {
  private readonly cache: TaskCache;
  private lastChange = 0;
  /** Hot writes: prepared statements on TypeORM's own connection, group commit (task-writer.ts). */
  private readonly writer: TaskWriter;
  /** Versions issued to the writer and not yet published to readers, by task id (the newest of each task). */
  private readonly issued = new Map<string, TaskRow>();

  constructor(
    private readonly db: DataSource,
    cache = new TaskCache(),
  ) {
    this.cache = cache;
    this.writer = new TaskWriter(sqliteDatabaseOf(db));
  }

  /** Loads the live rows; settles them (a crash left them live) as TASK_STATE_FAILED. Returns the ids it settled. */
  async open(nowMs: number): Promise<string[]> {
    // WAL: readers never block the writer, and a commit appends to the log instead of rewriting pages.
    // synchronous = NORMAL (with WAL): a commit is in the OS before it is acknowledged, so it survives the process
    // dying (kill -9); only the last commits before a power loss or OS crash may be lost (docs/decisions.md).
    await this.db.query('PRAGMA journal_mode = WAL');
    await this.db.query('PRAGMA synchronous = NORMAL');
    const [{ last }] = (await this.db.query('SELECT COALESCE(MAX(change), 0) AS last FROM tasks')) as { last: number }[];
    this.lastChange = Number(last);
    const live = (
      (await this.db.query(
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED') ORDER BY change`,
      )) as RawTaskRow[]
    ).map(fromRawRow);
    const settled: string[] = [];
    for (const row of live) {
      await this.save({ ...row, state: 'TASK_STATE_FAILED', statusText: SETTLED_ON_REOPEN, prompt: null }, nowMs);
      settled.push(row.id);
    }
    return settled;
  }

  /** Writes a new version of a task, taking the next change value, then publishes it to readers. */
  async save(next: Omit<TaskRow, 'change' | 'statusTimestampMs'>, nowMs: number): Promise<TaskRow> {
    const { row, durable } = this.issue(next, nowMs);
    await durable;
    this.publish(row);
    return row;
  }

  /**
   * Issues a new version of a task to the next group commit without waiting for it: `durable` settles once its
   * transaction has committed (or rejects with a StoreError). Until the caller publishes it, readers see the version
   * before; `latest` sees it at once, so the task's next change is decided on it. A version queued on top of one that
   * fails fails too (TaskWriter), and `latest` falls back to what readers see.
   */
  issue(next: Omit<TaskRow, 'change' | 'statusTimestampMs'>, nowMs: number): { row: TaskRow; durable: Promise<void> } {
    const row = this.version(next, nowMs);
    this.issued.set(row.id, row);
    const durable = new Promise<void>((resolve, reject) => {
      this.writer.write(row, (error) => {
        if (error === null) return resolve();
        if (this.issued.get(row.id) === row) this.issued.delete(row.id);
        reject(storeError(row.id, error));
      });
    });
    return { row, durable };
  }

  /** A committed version becomes what readers see (the mirror); call in the order the versions were issued. */
  publish(row: TaskRow): void {
    if (this.issued.get(row.id) === row) this.issued.delete(row.id);
    this.cache.put(row);
  }

  /**
   * The task's newest version, issued or published: what its next change is decided on. For the session's own
   * bookkeeping; a caller is answered with what was published (`row`, `read`).
   */
  latest(id: string): TaskRow | undefined {
    return this.issued.get(id) ?? this.cache.get(id);
  }

  /**
   * A new task that starts at once: its TASK_STATE_SUBMITTED row and its TASK_STATE_WORKING row, written in the same
   * group commit (both are queued in this turn, so the writer cannot split them). Resolves with both versions once
   * that commit is durable, published to readers in order; nothing reports either before.
   */
  async saveStarting(next: Omit<TaskRow, 'change' | 'statusTimestampMs'>, nowMs: number): Promise<[submitted: TaskRow, working: TaskRow]> {
    const submitted = this.issue({ ...next, state: 'TASK_STATE_SUBMITTED' }, nowMs);
    const working = this.issue({ ...next, state: 'TASK_STATE_WORKING' }, nowMs);
    await Promise.all([submitted.durable, working.durable]);
    this.publish(submitted.row);
    this.publish(working.row);
    return [submitted.row, working.row];
  }

  private version(next: Omit<TaskRow, 'change' | 'statusTimestampMs'>, nowMs: number): TaskRow {
    const row = Object.assign(new TaskRow(), next, { change: this.lastChange + 1, statusTimestampMs: nowMs });
    this.lastChange = row.change;
    return row;
  }

  /** Every live row, unfiltered: for the session's own bookkeeping, never for answering a caller. */
  liveRows(): TaskRow[] {
    return this.cache.liveRows();
  }

  /**
   * The task as the mirror holds it: always for a live task, for an ended one only while it is hot. For the
   * session's own bookkeeping of live tasks; a caller's request may name an old task, so it uses `read`.
   */
  row(id: string): TaskRow | undefined {
    return this.cache.get(id);
  }

  /** The task's latest version, from the mirror or else from SQLite (an ended task never changes again). */
  async read(id: string): Promise<TaskRow | undefined> {
    const held = this.cache.get(id);
    if (held || !isId('task', id)) return held;
    let raw: RawTaskRow[];
    try {
      raw = (await this.db.query(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ?`, [id])) as RawTaskRow[];
    } catch (error) {
      throw new StoreError(`the task store could not read task ${id}: ${(error as Error).message}`, { cause: error });
    }
    if (raw.length === 0) return undefined;
    const row = fromRawRow(raw[0]);
    this.cache.put(row);
    return this.cache.get(id) ?? row;
  }

  viewFor(caller: Caller): TaskView {
    return new TaskView((id) => this.read(id), this.db, caller);
  }

  /** A session-wide value kept with the records, created by `make` the first time it is asked for. */
  async meta(key: string, make: () => string): Promise<string> {
    const repo = this.db.getRepository(MetaRow);
    try {
      const found = await repo.findOneBy({ key });
      if (found) return found.value;
      const value = make();
      await repo.insert({ key, value });
      return value;
    } catch (error) {
      throw new StoreError(`the task store could not read its ${key}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Nest's destroy hook runs before TypeORM closes the connection, which cannot close with statements prepared. */
  async onModuleDestroy(): Promise<void> {
    await this.writer.close();
  }

  async close(): Promise<void> {
    await this.writer.close();
    if (this.db.isInitialized) await this.db.destroy();
  }
}
