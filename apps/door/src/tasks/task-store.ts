import type { ListTasksQuery, TaskState } from '@murmur/protocol';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { TaskRow } from './task.entity.js';

export interface TaskPage {
  rows: TaskRow[];
  /** The last row's position when more rows follow it, else null. */
  next: { change: number; taskId: string } | null;
  totalSize: number;
}

/** The settle message a task left live by a crash gets when its records are reopened. */
export const SETTLED_ON_REOPEN = 'the session ended before this task did; settled when its records were reopened';

/**
 * The session's durable task store: SQLite through TypeORM, written through before any change is reported,
 * with every row mirrored in memory so reads never wait on the database. Reads go through `viewFor(caller)`.
 */
export class TaskStore {
  private readonly rows = new Map<string, TaskRow>();
  private lastChange = 0;

  constructor(private readonly db: DataSource) {}

  /** Loads every row; settles the ones a crash left live as TASK_STATE_FAILED. Returns the ids it settled. */
  async open(nowMs: number): Promise<string[]> {
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
      await this.db
        .createQueryBuilder()
        .insert()
        .into(TaskRow)
        .values(row)
        .orUpdate(['context_id', 'state', 'change', 'status_ts_ms', 'status_text', 'response', 'prompt', 'residue', 'murmur'], ['id'])
        .execute();
    } catch (error) {
      throw new StoreError(`the task store could not record task ${row.id}: ${(error as Error).message}`);
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
    return new TaskView(this, this.db, caller);
  }

  async close(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}

export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** The store as one caller sees it: no query it offers reaches a task the caller does not see. */
export class TaskView {
  constructor(
    private readonly store: TaskStore,
    private readonly db: DataSource,
    readonly caller: Caller,
  ) {}

  private sees(row: TaskRow): boolean {
    return this.caller.sees === 'all' || row.owner === this.caller.principal;
  }

  get(id: string): TaskRow | undefined {
    const row = this.store.row(id);
    return row && this.sees(row) ? row : undefined;
  }

  async list(query: ListTasksQuery): Promise<TaskPage> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (this.caller.sees === 'own') {
      where.push('owner = ?');
      args.push(this.caller.principal);
    }
    if (query.contextId !== null) {
      where.push('context_id = ?');
      args.push(query.contextId);
    }
    if (query.status !== null) {
      where.push('state = ?');
      args.push(query.status satisfies TaskState);
    }
    if (query.statusTimestampAfterMs !== null) {
      where.push('status_ts_ms >= ?');
      args.push(query.statusTimestampAfterMs);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const cursor = query.after ? `${where.length > 0 ? 'AND' : 'WHERE'} change < ?` : '';
    const pageArgs = query.after ? [...args, query.after.change] : args;
    let ids: { id: string; change: number }[];
    let count: { n: number }[];
    try {
      [ids, count] = await Promise.all([
        this.db.query(`SELECT id, change FROM tasks ${filter} ${cursor} ORDER BY change DESC LIMIT ?`, [...pageArgs, query.pageSize + 1]),
        this.db.query(`SELECT COUNT(*) AS n FROM tasks ${filter}`, args),
      ]);
    } catch (error) {
      throw new StoreError(`the task store could not list tasks: ${(error as Error).message}`);
    }
    const rows = ids.slice(0, query.pageSize).map(({ id }) => this.store.row(id)!);
    // The cursor is the position this query read, not the in-memory row's: a task that changed since has a later
    // change value, and a cursor taken from it would hand this page's rows out again on the next.
    const last = ids.length > query.pageSize ? ids[query.pageSize - 1] : undefined;
    return { rows, next: last ? { change: Number(last.change), taskId: last.id } : null, totalSize: count[0].n };
  }
}
