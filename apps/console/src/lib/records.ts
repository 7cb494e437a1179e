/**
 * `mur console`'s record API (docs/console.md), read with the wire types of @murmur/protocol: a task's durable
 * record, summaries by id, a session's search. Same-origin: the console's own server answers.
 */
import {
  CONSOLE_RECORD_ROLLUP_PATH,
  CONSOLE_RECORD_SESSION_PREFIX,
  CONSOLE_ROLLUP_SUFFIX,
  type ConsoleRollup,
  CONSOLE_RECORD_SESSIONS_PATH,
  type ConsoleRecordSessionsResponse,
  CONSOLE_RECORD_TASK_PREFIX,
  CONSOLE_RECORD_TASKS_PATH,
  type ConsoleTaskRecordPage,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  type TaskRecordEntry,
  type TaskRecordMember,
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

/** The most pages of a task's record the console reads (1,000 entries each). */
const RECORD_PAGES_MAX = 20;

/**
 * A task's whole record (every page) with its formation member tasks' records, which each page carries for its own
 * entries (docs/console.md, "Formations"), by task id; null when no records folder on this host holds it.
 */
export async function readTaskRecord(taskId: string, options: { fetch?: Fetch; signal?: AbortSignal } = {}) {
  const fetcher = options.fetch ?? defaultFetch;
  let task: TaskRecordSummary | null = null;
  const entries: TaskRecordEntry[] = [];
  const members = new Map<string, TaskRecordMember>();
  let cursor: string | null = '0';
  for (let pages = 0; cursor !== null && pages < RECORD_PAGES_MAX; pages++) {
    const page: ConsoleTaskRecordPage | null = await getJson<ConsoleTaskRecordPage>(
      `${CONSOLE_RECORD_TASK_PREFIX}${encodeURIComponent(taskId)}?cursor=${cursor}&limit=1000`,
      fetcher,
      options.signal,
    );
    if (page === null) return null;
    task = page.task;
    entries.push(...page.entries);
    // `?? []`: a mur console from before members were sent (a `vite dev` console against an older one).
    for (const member of page.members ?? []) if (!members.has(member.task.taskId)) members.set(member.task.taskId, member);
    cursor = page.nextCursor;
  }
  return task ? { task, entries, members, complete: cursor === null } : null;
}

/** The summaries of the given tasks that this host's records hold. */
export async function readSummaries(ids: string[], options: { fetch?: Fetch; signal?: AbortSignal } = {}): Promise<TaskRecordSummary[]> {
  if (ids.length === 0) return [];
  const body = await getJson<ConsoleTaskSummariesResponse>(`${CONSOLE_RECORD_TASKS_PATH}?ids=${ids.map(encodeURIComponent).join(',')}`, options.fetch ?? defaultFetch, options.signal);
  return body?.tasks ?? [];
}

export interface SessionSearch {
  q: string;
  state?: string;
  contextId?: string;
  /** RFC 3339: tasks whose state changed after it. */
  since?: string;
  limit?: number;
  cursor?: string;
}

/** A session's tasks whose input, replies, answer or status text contain `q`, with the exact filters given. */
export function searchSession(sessionId: string, search: SessionSearch, options: { fetch?: Fetch; signal?: AbortSignal } = {}) {
  const query = new URLSearchParams({ q: search.q, cursor: search.cursor ?? '0' });
  if (search.state) query.set('state', search.state);
  if (search.contextId) query.set('contextId', search.contextId);
  if (search.since) query.set('since', search.since);
  if (search.limit !== undefined) query.set('limit', String(search.limit));
  return getJson<ConsoleTaskSummariesPage>(`${CONSOLE_RECORD_SESSION_PREFIX}${encodeURIComponent(sessionId)}/tasks?${query}`, options.fetch ?? defaultFetch, options.signal);
}

/** The tasks table's filters, as the rollup takes them (docs/console.md, "Rollups"). */
export type RollupSearch = Omit<SessionSearch, 'limit' | 'cursor'>;

/**
 * Where the time and the tokens went in one session's tasks, or several sessions' (a formation's members), kept by
 * the tasks table's filters: computed by mur console from the records, never task by task in the page. Null when the
 * session's records are not on this host.
 */
export function readRollup(sessions: { sessionId: string } | { sessionIds: readonly string[] }, search: RollupSearch, options: { fetch?: Fetch; signal?: AbortSignal } = {}) {
  const query = new URLSearchParams();
  if ('sessionIds' in sessions) query.set('sessions', sessions.sessionIds.join(','));
  if (search.q) query.set('q', search.q);
  if (search.state) query.set('state', search.state);
  if (search.contextId) query.set('contextId', search.contextId);
  if (search.since) query.set('since', search.since);
  const where = 'sessionId' in sessions ? `${CONSOLE_RECORD_SESSION_PREFIX}${encodeURIComponent(sessions.sessionId)}${CONSOLE_ROLLUP_SUFFIX}` : CONSOLE_RECORD_ROLLUP_PATH;
  return getJson<ConsoleRollup>(`${where}?${query}`, options.fetch ?? defaultFetch, options.signal);
}

/**
 * The id of the session whose door serves at `door` (host:port), from the records on this host: the newest one not
 * ended, else the newest. Null when no record names that address (a door not on this host).
 */
export async function recordSessionOfDoor(door: string, options: { fetch?: Fetch; signal?: AbortSignal } = {}): Promise<string | null> {
  const body = await getJson<ConsoleRecordSessionsResponse>(CONSOLE_RECORD_SESSIONS_PATH, options.fetch ?? defaultFetch, options.signal);
  const hostOf = (url: string | null) => {
    try {
      return url === null ? null : new URL(url).host;
    } catch {
      return null;
    }
  };
  const mine = (body?.sessions ?? []).filter((s) => hostOf(s.url) === door);
  return (mine.find((s) => s.state !== 'ended') ?? mine[0])?.sessionId ?? null;
}

/** Where a whole session's record downloads as NDJSON. */
export const sessionExportUrl = (sessionId: string) => `${CONSOLE_RECORD_SESSION_PREFIX}${encodeURIComponent(sessionId)}/export`;

/** Where a task's record downloads as NDJSON. */
export const exportUrl = (taskId: string) => `${CONSOLE_RECORD_TASK_PREFIX}${encodeURIComponent(taskId)}/export`;
