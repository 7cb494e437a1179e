import { decodeTaskRow, type RawTaskRow } from '../records/task-table.js';
import { TaskRow } from './task.entity.js';

/** A raw SELECT's row (records/task-table.ts) as the entity TypeORM and the task cache hold. */
export function fromRawRow(raw: RawTaskRow): TaskRow {
  return Object.assign(new TaskRow(), decodeTaskRow(raw));
}
