/** Reads ListTasks params in the order of seed 000's "ListTasks" table; the first parameter refused answers, naming it. */
import { invalidParams } from './errors.js';
import { decodePageToken, type SealedPagePosition } from './page-token.js';
import { TASK_STATE_FILTER_NAMES, type TaskState } from './task-states.js';
import { parseTimestampCeilMs } from './timestamps.js';
import type { JsonObject, JsonRpcErrorObject } from './types.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface ListTasksQuery {
  /** null: every context. */
  contextId: string | null;
  /** null: every state. */
  status: TaskState | null;
  pageSize: number;
  /** null: the first page. */
  after: SealedPagePosition | null;
  /** Earliest status.timestamp, in epoch ms, or null for every task. */
  statusTimestampAfterMs: number | null;
  includeArtifacts: boolean;
}

export type ListTasksVerdict = { ok: true; query: ListTasksQuery } | { ok: false; error: JsonRpcErrorObject };

const refuse = (message: string): ListTasksVerdict => ({ ok: false, error: invalidParams(message) });

/**
 * `issued` tells whether the door sealed a well-formed token (page-token.ts): it is asked at the pageToken step, so a
 * token the door never issued is refused in the seed's order, before the params read after it.
 */
export function readListTasksParams(params: JsonObject, options: { issued?: (position: SealedPagePosition) => boolean } = {}): ListTasksVerdict {
  const { contextId, status, pageSize, pageToken, statusTimestampAfter, includeArtifacts } = params;

  if (contextId !== undefined && typeof contextId !== 'string') return refuse('Invalid params: contextId must be a string');

  if (status !== undefined && (typeof status !== 'string' || !TASK_STATE_FILTER_NAMES.includes(status))) {
    return refuse(`Invalid params: status must be a TASK_STATE_* name, such as TASK_STATE_WORKING, not ${JSON.stringify(status)}`);
  }

  let size = DEFAULT_PAGE_SIZE;
  if (pageSize !== undefined) {
    if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 1) {
      return refuse(`Invalid params: pageSize must be an integer from 1, not ${JSON.stringify(pageSize)}`);
    }
    size = Math.min(pageSize, MAX_PAGE_SIZE);
  }

  let after: SealedPagePosition | null = null;
  if (pageToken !== undefined && pageToken !== '') {
    after = typeof pageToken === 'string' ? decodePageToken(pageToken) : null;
    if (after !== null && options.issued && !options.issued(after)) after = null;
    if (after === null) return refuse('Invalid params: pageToken must be "" or a nextPageToken this door answered');
  }

  let cutoff: number | null = null;
  if (statusTimestampAfter !== undefined && statusTimestampAfter !== null) {
    cutoff = typeof statusTimestampAfter === 'string' ? parseTimestampCeilMs(statusTimestampAfter) : null;
    if (cutoff === null) return refuse('statusTimestampAfter must be an RFC 3339 timestamp, such as 2026-10-13T09:00:00Z');
  }

  if (includeArtifacts !== undefined && typeof includeArtifacts !== 'boolean') {
    return refuse('Invalid params: includeArtifacts must be a boolean');
  }

  return {
    ok: true,
    query: {
      contextId: contextId === undefined || contextId === '' ? null : contextId,
      status: status === undefined || status === 'TASK_STATE_UNSPECIFIED' ? null : (status as TaskState),
      pageSize: size,
      after,
      statusTimestampAfterMs: cutoff,
      includeArtifacts: includeArtifacts === true,
    },
  };
}
