/**
 * `mur console`'s record API (docs/console.md), read with the wire types of @murmur/protocol: a task's durable
 * record, summaries by id, a session's search. Same-origin: the console's own server answers.
 */
import {
  CONSOLE_RECORD_SESSION_PREFIX,
  CONSOLE_RECORD_TASK_PREFIX,
  CONSOLE_RECORD_TASKS_PATH,
  type ConsoleTaskRecordPage,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  type TaskRecordEntry,
  type TaskRecordSummary,
} from '@murmur/protocol';
import { ConsoleApiError } from './errors.js';

export type Fetch = typeof fetch;
const defaultFetch: Fetch = (input, init) => globalThis.fetch(input, init);

async function getJson<T>(url: string, fetcher: Fetch, signal?: AbortSignal): Promise<T | null> {
  let response: Response;
  try {
    response = await fetcher(url, { headers: { accept: 'application/json' }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ConsoleApiError(`no answer from ${url}: ${error instanceof Error ? error.message : String(error)}`, null);
  }
  if (response.status === 404) return null;
  if (!response.ok) throw new ConsoleApiError(`${url} answered HTTP ${response.status}`, response.status);
  return (await response.json()) as T;
}

/** A task's whole record (every page), or null when no records folder on this host holds it. */
export async function readTaskRecord(taskId: string, options: { fetch?: Fetch; signal?: AbortSignal; pageLimit?: number } = {}) {
  const fetcher = options.fetch ?? defaultFetch;
  let task: TaskRecordSummary | null = null;
  const entries: TaskRecordEntry[] = [];
  let cursor: string | null = '0';
  for (let pages = 0; cursor !== null && pages < (options.pageLimit ?? 20); pages++) {
    const page: ConsoleTaskRecordPage | null = await getJson<ConsoleTaskRecordPage>(
      `${CONSOLE_RECORD_TASK_PREFIX}${encodeURIComponent(taskId)}?cursor=${cursor}&limit=1000`,
      fetcher,
      options.signal,
    );
    if (page === null) return null;
    task = page.task;
    entries.push(...page.entries);
    cursor = page.nextCursor;
  }
  return task ? { task, entries, complete: cursor === null } : null;
}

/** The summaries of the given tasks that this host's records hold. */
export async function readSummaries(ids: string[], options: { fetch?: Fetch; signal?: AbortSignal } = {}): Promise<TaskRecordSummary[]> {
  if (ids.length === 0) return [];
  const body = await getJson<ConsoleTaskSummariesResponse>(`${CONSOLE_RECORD_TASKS_PATH}?ids=${ids.map(encodeURIComponent).join(',')}`, options.fetch ?? defaultFetch, options.signal);
  return body?.tasks ?? [];
}

/** A session's tasks whose input, replies or answer contain `q`. */
export function searchSession(sessionId: string, q: string, options: { fetch?: Fetch; signal?: AbortSignal; cursor?: string } = {}) {
  const query = new URLSearchParams({ q, cursor: options.cursor ?? '0' });
  return getJson<ConsoleTaskSummariesPage>(`${CONSOLE_RECORD_SESSION_PREFIX}${encodeURIComponent(sessionId)}/tasks?${query}`, options.fetch ?? defaultFetch, options.signal);
}

/** Where a task's record downloads as NDJSON. */
export const exportUrl = (taskId: string) => `${CONSOLE_RECORD_TASK_PREFIX}${encodeURIComponent(taskId)}/export`;
