import type { MurmurTaskMetadata, ResidueItem, TaskState } from '@murmur/protocol';

/**
 * The `tasks` table of a session's store.db (docs/records.md): one home for its columns and its row decoder. The
 * door's TypeORM entity (tasks/task.entity.ts) declares these columns by these names, and `mur console` reads the
 * table with this decoder, without TypeORM.
 */
export interface StoredTask {
  id: string;
  contextId: string;
  state: TaskState;
  /** The session's monotonic change counter: every state change or recorded ending takes the next value. */
  change: number;
  statusTimestampMs: number;
  /** The final status message's text, on a terminal task that said something. */
  statusText: string | null;
  response: string | null;
  /** The question a TASK_STATE_INPUT_REQUIRED task waits on. */
  prompt: string | null;
  residue: ResidueItem[] | null;
  murmur: MurmurTaskMetadata | null;
  /** Who started it: "session" for the runtime's own tasks, "public", "operator" or a credential name. */
  owner: string;
  messageId: string;
  createdAtMs: number;
}

/** Each field's column, in the table's order. */
export const TASK_COLUMN = {
  id: 'id',
  contextId: 'context_id',
  state: 'state',
  change: 'change',
  statusTimestampMs: 'status_ts_ms',
  statusText: 'status_text',
  response: 'response',
  prompt: 'prompt',
  residue: 'residue',
  murmur: 'murmur',
  owner: 'owner',
  messageId: 'message_id',
  createdAtMs: 'created_at_ms',
} as const satisfies { readonly [K in keyof StoredTask]: string };

type Column = (typeof TASK_COLUMN)[keyof StoredTask];

/** A row as a raw SELECT returns it: column names, the JSON columns as text. */
export type RawTaskRow = {
  [K in keyof StoredTask as (typeof TASK_COLUMN)[K]]: K extends 'residue' | 'murmur' ? string | null : K extends 'state' ? string : StoredTask[K];
};

/** The columns in the table's order: the one list reads and writes use. */
export const TASK_COLUMN_NAMES: readonly Column[] = Object.values(TASK_COLUMN);

/** The columns as a SELECT list. */
export const TASK_COLUMNS = TASK_COLUMN_NAMES.join(', ');

const parseJson = <T>(text: string | null): T | null => (text === null || text === '' ? null : (JSON.parse(text) as T));

/** A raw row as the stored task it holds: the JSON columns parsed. */
export function decodeTaskRow(raw: RawTaskRow): StoredTask {
  return {
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
  };
}
