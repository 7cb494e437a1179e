import type { ListTasksQuery, TaskState } from '@murmur/protocol';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import type { TaskRow } from './task.entity.js';
import { StoreError } from './store-error.js';

export interface TaskPage {
  rows: TaskRow[];
  /** The last row's position when more rows follow it, else null. */
  next: { change: number; taskId: string } | null;
  totalSize: number;
}

/** The store as one caller sees it: no query it offers reaches a task the caller does not see. */
export class TaskView {
  constructor(
    /** The store's current version of a task, by id. */
    private readonly rowOf: (id: string) => TaskRow | undefined,
    private readonly db: DataSource,
    readonly caller: Caller,
  ) {}

  private sees(row: TaskRow): boolean {
    return this.caller.sees === 'all' || row.owner === this.caller.principal;
  }

  get(id: string): TaskRow | undefined {
    const row = this.rowOf(id);
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
    const rows = ids.slice(0, query.pageSize).map(({ id }) => this.rowOf(id)!);
    // The cursor is the position this query read, not the in-memory row's: a task that changed since has a later
    // change value, and a cursor taken from it would hand this page's rows out again on the next.
    const last = ids.length > query.pageSize ? ids[query.pageSize - 1] : undefined;
    return { rows, next: last ? { change: Number(last.change), taskId: last.id } : null, totalSize: count[0].n };
  }
}
