/**
 * Bulk-inserts completed tasks straight into a stopped session's store.db, in one transaction, with the columns of
 * the `tasks` table TypeORM created from task.entity.ts. Rows look like the door's own: ids are the kind prefix and
 * a UUIDv7 as 32 lowercase hex digits, `change` continues the store's counter, one per row, increasing.
 */
import type { TaskState } from '@murmur/protocol';
import { newId } from '../src/common/ids.js';
import { PAGE_TOKEN_KEY } from '../src/tasks/page-tokens.js';
import { TASK_COLUMN_NAMES } from '../src/records/task-table.js';
import sqlite3 from 'sqlite3';

/** The tasks table's columns, as the door reads and writes them. */
const COLUMNS = TASK_COLUMN_NAMES;

/** Rows per INSERT statement: 500 × 13 parameters stays far below SQLite's variable limit. */
const BATCH = 500;

export interface SeededTasks {
  /** Task ids by change: `idByChange(c)` for firstChange ≤ c ≤ lastChange. */
  idByChange(change: number): string;
  firstChange: number;
  lastChange: number;
  /** The session's page-token key, so the bench can build the token the door would answer for any page. */
  pageTokenKey: string;
  insertMs: number;
}

type Db = InstanceType<typeof sqlite3.Database>;

function open(file: string): Promise<Db> {
  return new Promise((resolve, reject) => {
    const db: Db = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(db)));
  });
}

function run(db: Db, sql: string, params: (string | number | null)[] = []): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
}

function all<T>(db: Db, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all<T>(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
}

function close(db: Db): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

/** Refuses a table whose columns drifted from the ones written here, rather than seeding something the door misreads. */
async function checkColumns(db: Db): Promise<void> {
  const info = await all<{ name: string; notnull: number; dflt_value: string | null }>(db, 'PRAGMA table_info(tasks)');
  if (info.length === 0) throw new Error('store.db has no tasks table: the door did not create its schema');
  const known = new Set<string>(COLUMNS);
  const missing = COLUMNS.filter((c) => !info.some((col) => col.name === c));
  const unfilled = info.filter((col) => !known.has(col.name) && col.notnull === 1 && col.dflt_value === null).map((col) => col.name);
  if (missing.length > 0 || unfilled.length > 0) {
    throw new Error(
      `the tasks table changed (missing: ${missing.join(', ') || 'none'}; required and unknown: ${unfilled.join(', ') || 'none'}): update bench/seed-tasks.ts`,
    );
  }
}

/** One seeded row's state, times and texts; by default a completed task created one second after the one before. */
export interface SeedRow {
  state: TaskState;
  createdAtMs: number;
  statusTimestampMs: number;
  statusText: string | null;
  response: string | null;
}

export async function seedTasks(storeFile: string, count: number, rowOf?: (n: number) => SeedRow): Promise<SeededTasks> {
  const db = await open(storeFile);
  try {
    await checkColumns(db);
    const [{ top }] = await all<{ top: number | null }>(db, 'SELECT MAX(change) AS top FROM tasks');
    const firstChange = (top ?? 0) + 1;
    const ids: string[] = [];
    const started = performance.now();
    const baseMs = Date.now() - count * 1000;
    await run(db, 'BEGIN IMMEDIATE');
    try {
      for (let offset = 0; offset < count; offset += BATCH) {
        const rows = Math.min(BATCH, count - offset);
        const params: (string | number | null)[] = [];
        for (let r = 0; r < rows; r++) {
          const n = offset + r;
          const id = newId('task');
          ids.push(id);
          const at = baseMs + n * 1000;
          const row = rowOf?.(n) ?? {
            state: 'TASK_STATE_COMPLETED',
            createdAtMs: at,
            statusTimestampMs: at + 5,
            statusText: 'task completed',
            response: `seeded answer ${n}`,
          };
          // id, context_id, state, change, status_ts_ms, status_text, response, prompt, residue, murmur, owner, message_id, created_at_ms
          params.push(
            id,
            newId('context'),
            row.state,
            firstChange + n,
            row.statusTimestampMs,
            row.statusText,
            row.response,
            null,
            null,
            null,
            'public',
            `msg-seed-${n}`,
            row.createdAtMs,
          );
        }
        const placeholders = Array.from({ length: rows }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ');
        await run(db, `INSERT INTO tasks (${COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES ${placeholders}`, params);
      }
      await run(db, 'COMMIT');
    } catch (error) {
      await run(db, 'ROLLBACK').catch(() => undefined);
      throw error;
    }
    const insertMs = performance.now() - started;
    const [key] = await all<{ value: string }>(db, `SELECT value FROM door_meta WHERE key = '${PAGE_TOKEN_KEY}'`);
    if (!key) throw new Error('store.db holds no page-token key: the door did not open its records');
    return { idByChange: (change) => ids[change - firstChange], firstChange, lastChange: firstChange + count - 1, pageTokenKey: key.value, insertMs };
  } finally {
    await close(db);
  }
}
