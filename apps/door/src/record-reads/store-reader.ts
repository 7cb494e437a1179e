import path from 'node:path';
import type { TaskState } from '@murmur/protocol';
import sqlite3 from 'sqlite3';
import { decodeTaskRow, type RawTaskRow, type StoredTask, TASK_COLUMNS } from '../records/task-table.js';

/**
 * Reads a session's store.db read-only, live or not: sqlite3 runs the query on libuv's pool, and a read-only
 * connection never writes to a door's database. Resolves [] when the store cannot be read.
 */
export function readStoredTasks(recordsDir: string, taskId?: string): Promise<StoredTask[]> {
  return new Promise((resolve) => {
    const db = new sqlite3.Database(path.join(recordsDir, 'store.db'), sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return resolve([]);
      const sql = `SELECT ${TASK_COLUMNS} FROM tasks${taskId ? ' WHERE id = ?' : ''} ORDER BY change DESC`;
      db.all<RawTaskRow>(sql, taskId ? [taskId] : [], (error, rows) => {
        db.close();
        if (error) return resolve([]);
        resolve(rows.map(decodeTaskRow));
      });
    });
  });
}

/** How many of a session's stored tasks are in `state` (one COUNT on the state index), or null when unreadable. */
export function countStoredTasks(recordsDir: string, state: TaskState): Promise<number | null> {
  return new Promise((resolve) => {
    const db = new sqlite3.Database(path.join(recordsDir, 'store.db'), sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return resolve(null);
      db.get<{ n: number }>('SELECT count(*) AS n FROM tasks WHERE state = ?', [state], (error, row) => {
        db.close();
        resolve(error || !row ? null : row.n);
      });
    });
  });
}

/** A session's stored tasks counted per state (one GROUP BY on the state index); empty when unreadable. */
export function countTasksByState(recordsDir: string): Promise<Partial<Record<TaskState, number>>> {
  return new Promise((resolve) => {
    const db = new sqlite3.Database(path.join(recordsDir, 'store.db'), sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return resolve({});
      db.all<{ state: TaskState; n: number }>('SELECT state, count(*) AS n FROM tasks GROUP BY state', [], (error, rows) => {
        db.close();
        resolve(error ? {} : Object.fromEntries(rows.map((r) => [r.state, r.n])));
      });
    });
  });
}

/** The stored state of each of `ids` that the session's store holds (none when unreadable). */
export function storedStates(recordsDir: string, ids: readonly string[]): Promise<Map<string, TaskState>> {
  return new Promise((resolve) => {
    if (ids.length === 0) return resolve(new Map());
    const db = new sqlite3.Database(path.join(recordsDir, 'store.db'), sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return resolve(new Map());
      db.all<{ id: string; state: TaskState }>(`SELECT id, state FROM tasks WHERE id IN (${ids.map(() => '?').join(',')})`, [...ids], (error, rows) => {
        db.close();
        resolve(error ? new Map() : new Map(rows.map((r) => [r.id, r.state])));
      });
    });
  });
}
