import type { MurmurTaskMetadata, ResidueItem, TaskState } from '@murmur/protocol';
import { TaskRow } from './task.entity.js';

/** A `tasks` row as a raw SELECT returns it: column names, simple-json columns as text. */
export interface RawTaskRow {
  id: string;
  context_id: string;
  state: string;
  change: number;
  status_ts_ms: number;
  status_text: string | null;
  response: string | null;
  prompt: string | null;
  residue: string | null;
  murmur: string | null;
  owner: string;
  message_id: string;
  created_at_ms: number;
}

/** The `tasks` table's columns (task.entity.ts), in the order RawTaskRow lists them: the one list reads and writes use. */
export const TASK_COLUMN_NAMES = [
  'id',
  'context_id',
  'state',
  'change',
  'status_ts_ms',
  'status_text',
  'response',
  'prompt',
  'residue',
  'murmur',
  'owner',
  'message_id',
  'created_at_ms',
] as const satisfies readonly (keyof RawTaskRow)[];

/** The columns as a SELECT list. */
export const TASK_COLUMNS = TASK_COLUMN_NAMES.join(', ');

const parseJson = <T>(text: string | null): T | null => (text === null || text === '' ? null : (JSON.parse(text) as T));

export function fromRawRow(raw: RawTaskRow): TaskRow {
  return Object.assign(new TaskRow(), {
    id: raw.id,
    contextId: raw.context_id,
    state: raw.state as TaskState,
    change: Number(raw.change),
    statusTimestampMs: Number(raw.status_ts_ms),
    statusText: raw.status_text,
    response: raw.response,
    prompt: raw.prompt,
    residue: parseJson<ResidueItem[]>(raw.residue),
    murmur: parseJson<MurmurTaskMetadata>(raw.murmur),
    owner: raw.owner,
    messageId: raw.message_id,
    createdAtMs: Number(raw.created_at_ms),
  });
}
