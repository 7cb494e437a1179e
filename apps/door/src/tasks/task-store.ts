import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { MetaRow } from './meta.entity.js';
import { sqliteDatabaseOf } from './sqlite-driver.js';
import { StoreError } from './store-error.js';
import { TaskRow } from './task.entity.js';
import { TaskView } from './task-view.js';
import { TaskWriter } from './task-writer.js';

/** The settle message a task left live by a crash gets when its records are reopened. */
export const SETTLED_ON_REOPEN = 'the session ended before this task did; settled when its records were reopened';

/**
 * The session's durable task store: SQLite through TypeORM, written through before any change is reported,
 * with every row mirrored in memory so reads never wait on the database. Reads go through `viewFor(caller)`.
 */
export class TaskStore {
  private readonly rows = new Map<string, TaskRow>();
  private lastChange = 0;

  /** Hot writes: prepared statements on TypeORM's own connection, group commit (task-writer.ts). */
  private readonly writer: TaskWriter;

  constructor(private readonly db: DataSource) {
    this.writer = new TaskWriter(sqliteDatabaseOf(db));
  }

  /** Loads every row; settles the ones a crash left live as TASK_STATE_FAILED. Returns the ids it settled. */
  async open(nowMs: number): Promise<string[]> {
    // WAL: readers never block the writer, and a commit appends to the log instead of rewriting pages.
    // synchronous = NORMAL (with WAL): a commit is in the OS before it is acknowledged, so it survives the process
    // dying (kill -9); only the last commits before a power loss or OS crash may be lost (docs/decisions.md).
    await this.db.query('PRAGMA journal_mode = WAL');
    await this.db.query('PRAGMA synchronous = NORMAL');
    const all = await this.db.getRepository(TaskRow).find({ order: { change: 'ASC' } });
    for (const row of all) {
      this.rows.set(row.id, row);
      this.lastChange = Math.max(this.lastChange, row.change);
    }
    const settled: string[] = [];
    for (const row of all) {
      if (row.state === 'TASK_STATE_COMPLETED' || row.state === 'TASK_STATE_FAILED' || row.state === 'TASK_STATE_CANCELED' || row.state === 'TASK_STATE_REJECTED') continue;
      await this.save({ ...row, state: 'TASK_STATE_FAILED', statusText: SETTLED_ON_REOPEN, prompt: null }, nowMs);
      settled.push(row.id);
    }
    return settled;
  }

  /** Writes a new version of a task, taking the next change value, then publishes it to readers. */
  async save(next: Omit<TaskRow, 'change' | 'statusTimestampMs'>, nowMs: number): Promise<TaskRow> {
    const row = Object.assign(new TaskRow(), next, { change: this.lastChange + 1, statusTimestampMs: nowMs });
    this.lastChange = row.change;
    try {
      await this.writer.write(row);
    } catch (error) {
      throw new StoreError(`the task store could not record task ${row.id}: ${(error as Error).message}`, { cause: error });
    }
    this.rows.set(row.id, row);
    return row;
  }

  /** Every row, unfiltered: for the session's own bookkeeping, never for answering a caller. */
  liveRows(): TaskRow[] {
    return [...this.rows.values()].filter((r) => r.state === 'TASK_STATE_SUBMITTED' || r.state === 'TASK_STATE_WORKING' || r.state === 'TASK_STATE_INPUT_REQUIRED');
  }

  row(id: string): TaskRow | undefined {
    return this.rows.get(id);
  }

  viewFor(caller: Caller): TaskView {
    return new TaskView((id) => this.rows.get(id), this.db, caller);
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
