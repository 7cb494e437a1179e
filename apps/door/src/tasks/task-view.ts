import type { ListTasksQuery, TaskState } from '@murmur/protocol';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { StoreError } from './store-error.js';
import type { TaskRow } from './task.entity.js';
import type { RawTaskRow } from '../records/task-table.js';
import { fromRawRow } from './task-row-codec.js';

/**
 * Characters of task text (responses, prompts, residue, status messages) one ListTasks page reads at most; a page
 * that would hold more ends early, with a token for the rest. The first row of a page is always answered.
 * @default 4 Mi characters
 */
const PAGE_TEXT_BUDGET = 4 * 1024 * 1024;

export interface TaskPage {
  rows: TaskRow[];
  /** The last row's position when more rows follow it, else null. */
  next: { change: number; taskId: string } | null;
  totalSize: number;
}

/** The columns a page answers, read from the task row `t`: without artifacts, only what the status shows. */
function columns(withArtifacts: boolean): string {
  const text = withArtifacts ? 't.response, t.prompt, t.residue' : 'NULL AS response, NULL AS prompt, NULL AS residue';
  return `t.id, t.context_id, t.state, t.change, t.status_ts_ms, t.status_text, ${text}, t.murmur, t.owner, t.message_id, t.created_at_ms`;
}

const textLength = (withArtifacts: boolean) =>
  withArtifacts
    ? 'COALESCE(LENGTH(status_text), 0) + COALESCE(LENGTH(response), 0) + COALESCE(LENGTH(prompt), 0) + COALESCE(LENGTH(residue), 0) + COALESCE(LENGTH(murmur), 0)'
    : 'COALESCE(LENGTH(status_text), 0) + COALESCE(LENGTH(murmur), 0)';

/** The store as one caller sees it: no query it offers reaches a task the caller does not see. */
export class TaskView {
  constructor(
    /** The store's latest version of a task, by id. */
    private readonly readRow: (id: string) => Promise<TaskRow | undefined>,
    private readonly db: DataSource,
    readonly caller: Caller,
  ) {}

  /** Whether this caller may see the task (its owner, or a caller who sees all). */
  sees(row: TaskRow): boolean {
    return this.caller.sees === 'all' || row.owner === this.caller.principal;
  }

  async read(id: string): Promise<TaskRow | undefined> {
    const row = await this.readRow(id);
    return row && this.sees(row) ? row : undefined;
  }

  /**
   * One page, read by one SQL statement, so its rows, its cursor and its total are one snapshot of the store (SQLite
   * reads a statement from one snapshot). Rows come from SQLite, not from the in-memory mirror: a task written to
   * SQLite and not yet mirrored cannot leave a hole in the page.
   */
  async list(query: ListTasksQuery, textBudget = PAGE_TEXT_BUDGET): Promise<TaskPage> {
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
    const pageWhere = query.after ? `${filter} ${where.length > 0 ? 'AND' : 'WHERE'} change < ?` : filter;
    const pageArgs = query.after ? [...args, query.after.change] : args;
    const withArtifacts = query.includeArtifacts;
    // The count row is always there (LEFT JOIN), with the page's rows beside it; `fetched` says how many rows the
    // page read before the text budget cut it, so a cut page still hands out a token for the rest. The window runs
    // over ids, positions and text lengths only; the text columns are joined back for the rows the page keeps, so
    // SQLite never copies the responses of the rows it cuts (each may be as large as a request body) into its sorter.
    const sql = `
      SELECT total.n AS total_size, page.* FROM (SELECT COUNT(*) AS n FROM tasks ${filter}) AS total
      LEFT JOIN (
        SELECT ${columns(withArtifacts)}, picked.fetched FROM (
          SELECT id, fetched FROM (
            SELECT id,
              SUM(text_length) OVER (ORDER BY change DESC ROWS UNBOUNDED PRECEDING) AS running_text,
              ROW_NUMBER() OVER (ORDER BY change DESC) AS position,
              COUNT(*) OVER () AS fetched
            FROM (SELECT id, change, ${textLength(withArtifacts)} AS text_length FROM tasks ${pageWhere} ORDER BY change DESC LIMIT ?)
          ) WHERE position = 1 OR running_text <= ?
        ) AS picked JOIN tasks AS t ON t.id = picked.id
      ) AS page ON 1
      ORDER BY page.change DESC`;
    let raw: (RawTaskRow & { total_size: number; fetched: number | null })[];
    try {
      raw = await this.db.query(sql, [...args, ...pageArgs, query.pageSize + 1, textBudget]);
    } catch (error) {
      throw new StoreError(`the task store could not list tasks: ${(error as Error).message}`);
    }
    const found = raw.filter((r) => r.id !== null);
    const totalSize = Number(raw[0]?.total_size ?? 0);
    const fetched = Number(found[0]?.fetched ?? 0);
    const rows = found.slice(0, query.pageSize).map(fromRawRow);
    // The cursor is the position this statement read: a task that changed since has a later change value, and a
    // cursor taken from its newer version would hand this page's rows out again on the next.
    const more = found.length > query.pageSize || (rows.length > 0 && fetched > rows.length);
    const last = more ? rows.at(-1) : undefined;
    return { rows, next: last ? { change: last.change, taskId: last.id } : null, totalSize };
  }
}
