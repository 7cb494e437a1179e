import type { Database, Statement } from 'sqlite3';
import type { TaskRow } from './task.entity.js';
import { TASK_COLUMN_NAMES } from '../records/task-table.js';

/** Rows one INSERT statement carries at most; a larger group is several of them inside one explicit transaction. */
const ROWS_PER_STATEMENT = 32;

/** The columns written, in bind order (TASK_COLUMN_NAMES); `id` is the conflict target. */
const COLUMNS = TASK_COLUMN_NAMES;
/** What a new version of a task replaces (owner, message id and creation time never change). */
const UPDATED = ['context_id', 'state', 'change', 'status_ts_ms', 'status_text', 'response', 'prompt', 'residue', 'murmur'] as const;

type Bound = string | number | null;

/** A row as its 13 bound values; `residue` and `murmur` as TypeORM's simple-json writes them (JSON text, or NULL). */
function bind(row: TaskRow, into: Bound[]): void {
  into.push(
    row.id,
    row.contextId,
    row.state,
    row.change,
    row.statusTimestampMs,
    row.statusText,
    row.response,
    row.prompt,
    row.residue === null || row.residue === undefined ? null : JSON.stringify(row.residue),
    row.murmur === null || row.murmur === undefined ? null : JSON.stringify(row.murmur),
    row.owner,
    row.messageId,
    row.createdAtMs,
  );
}

function upsertSql(rows: number): string {
  const tuple = `(${COLUMNS.map(() => '?').join(',')})`;
  const values = Array.from({ length: rows }, () => tuple).join(',');
  const set = UPDATED.map((c) => `${c} = excluded.${c}`).join(', ');
  return `INSERT INTO tasks (${COLUMNS.join(', ')}) VALUES ${values} ON CONFLICT (id) DO UPDATE SET ${set}`;
}

/** Called once the version's transaction has committed (null) or failed (SQLite's error). */
export type WriteDone = (error: Error | null) => void;

/**
 * The rows a group writes: each task's newest version in the group, in group order. A group commits or fails whole,
 * so the versions before it within the group (a task's SUBMITTED and WORKING written together, a WORKING and the
 * ending that followed it within a turn) could never be read from the store, and the newest holds every column they
 * did (an upsert replaces every column but the ones that never change): writing only it leaves the same rows for
 * fewer b-tree updates (each row touches the table and four indexes).
 */
function newestVersions(group: readonly Pending[]): TaskRow[] {
  const last = new Map<string, number>();
  for (let i = 0; i < group.length; i++) last.set(group[i].row.id, i);
  if (last.size === group.length) return group.map((p) => p.row);
  const rows: TaskRow[] = [];
  for (let i = 0; i < group.length; i++) if (last.get(group[i].row.id) === i) rows.push(group[i].row);
  return rows;
}

interface Pending {
  row: TaskRow;
  done: WriteDone;
}

/**
 * The store's hot write path: task versions upserted through prepared statements on the TypeORM connection's own
 * sqlite3 database, with group commit. Every version written in one event-loop turn (and every one that arrives
 * while a group is being written) goes into the next group, written as one transaction; each writer's promise
 * settles only once that transaction has committed or failed, so nothing can report a change before it is durable.
 *
 * A group of up to ROWS_PER_STATEMENT rows is one multi-row INSERT … ON CONFLICT DO UPDATE, which SQLite runs as
 * one implicit transaction: a single trip to libuv's thread pool, and no moment where another statement on this
 * connection (a ListTasks read through TypeORM) could see part of the group. A larger group is written between
 * BEGIN and COMMIT. Of one task's versions within a group only the newest is written (newestVersions).
 * One group is in flight at a time, so groups commit in the order of their change values. When a group fails, the
 * versions of its tasks queued meanwhile fail with it: they were made on top of a version that never landed.
 */
export class TaskWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight: Promise<void> | null = null;
  /** Prepared statements by row count, prepared on first use and kept until close. */
  private readonly statements = new Map<number, Statement>();
  /** Row counts whose statement is being prepared. */
  private readonly preparing = new Map<number, Promise<Statement>>();
  private closed = false;

  constructor(private readonly db: Database) {}

  /**
   * Queues a version for the next group; `done` is called once the transaction holding it has committed, or with
   * SQLite's error when it failed. Callbacks of one group run in the group's order, synchronously, one after another.
   */
  write(row: TaskRow, done: WriteDone): void {
    if (this.closed) {
      done(new Error('the task writer is closed'));
      return;
    }
    this.queue.push({ row, done });
    this.schedule();
  }

  /** Writes what is queued, then finalizes the prepared statements (the connection cannot close with them open). */
  async close(): Promise<void> {
    while (this.inFlight || this.queue.length > 0) {
      if (!this.inFlight) this.flush();
      await this.inFlight;
    }
    this.closed = true;
    const statements = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))));
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    // setImmediate, not a microtask: every write made in this turn — including by I/O callbacks of the same poll
    // phase and the promise chains they start — joins the group.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight || this.queue.length === 0) return;
    const group = this.queue;
    this.queue = [];
    this.inFlight = this.writeGroup(newestVersions(group)).then(
      () => {
        for (const p of group) p.done(null);
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        const failedTasks = new Set(group.map((p) => p.row.id));
        const dependents = this.queue.filter((p) => failedTasks.has(p.row.id));
        if (dependents.length > 0) this.queue = this.queue.filter((p) => !failedTasks.has(p.row.id));
        for (const p of group) p.done(failure);
        for (const p of dependents) p.done(failure);
      },
    );
    void this.inFlight.then(() => {
      this.inFlight = null;
      if (this.queue.length > 0) this.flush();
    });
  }

  private async writeGroup(rows: TaskRow[]): Promise<void> {
    if (rows.length <= ROWS_PER_STATEMENT) {
      await this.upsert(rows);
      return;
    }
    await this.exec('BEGIN IMMEDIATE');
    try {
      for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) await this.upsert(rows.slice(at, at + ROWS_PER_STATEMENT));
      await this.exec('COMMIT');
    } catch (error) {
      await this.exec('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private async upsert(rows: TaskRow[]): Promise<void> {
    const values: Bound[] = [];
    for (const row of rows) bind(row, values);
    const statement = this.statements.get(rows.length) ?? (await this.prepare(rows.length));
    return new Promise((resolve, reject) => {
      statement.run(values, (error: Error | null) => (error ? reject(error) : resolve()));
    });
  }

  /** Prepares the statement for `rows` rows; a failed preparation (the database busy or gone) is not kept. */
  private prepare(rows: number): Promise<Statement> {
    let pending = this.preparing.get(rows);
    if (!pending) {
      pending = new Promise<Statement>((resolve, reject) => {
        const statement = this.db.prepare(upsertSql(rows), (error: Error | null) => (error ? reject(error) : resolve(statement)));
      }).then(
        (statement) => {
          this.preparing.delete(rows);
          this.statements.set(rows, statement);
          return statement;
        },
        (error: unknown) => {
          this.preparing.delete(rows);
          throw error;
        },
      );
      this.preparing.set(rows, pending);
    }
    return pending;
  }

  private exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (error: Error | null) => (error ? reject(error) : resolve())));
  }
}
