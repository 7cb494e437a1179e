/**
 * A door's record (docs/console.md, "Every door serves its record"), read with the wire types of @murmur/protocol: a
 * task's durable record, summaries by id, a session's search, its exports and peer handles. Read from the door's
 * record plane first (`/resources/records/…` through mur console's proxy), for every door, local or not; mur
 * console's own record API (`/api/records/…`, the files on its host) only when the door gives no record — the
 * post-mortem path for a session whose door is gone. Both answer the same paths and shapes.
 */
import {
  CONSOLE_ARTIFACTS_SUFFIX,
  CONSOLE_DOOR_PROXY_PREFIX,
  CONSOLE_PEER_HANDLES_SUFFIX,
  CONSOLE_RECORDS_BASE,
  CONSOLE_ROLLUP_SUFFIX,
  type ConsoleRollup,
  type ConsoleRecordSessionsResponse,
  type ConsoleTaskRecordPage,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  RECORD_MEMBER_DEPTH,
  RECORD_MEMBER_ENTRIES_MAX,
  RECORD_MEMBERS_MAX,
  RECORDS_PLANE_PATH,
  type TaskRecordEntry,
  type TaskRecordMember,
  type TaskRecordSummary,
} from '@murmur/protocol';
import { consoleFetch, getJson, type JsonAnswer, objectBody } from '../io/console-api.js';
import { ConsoleApiError } from '../io/errors.js';

/** The door a record is read from first: its key (host:port, reached through mur console's proxy) and the door token the browser holds for it. */
export interface RecordDoor {
  key: string;
  token: string | null;
}

export interface RecordReadOptions {
  signal?: AbortSignal;
  /** Read from this door's record plane first; without it, only mur console's records on its host are read. */
  door?: RecordDoor | null;
}

/** Where a record path is read on a door (through the proxy), or on mur console itself (door null). */
function recordUrl(rest: string, door: RecordDoor | string | null = null): string {
  if (door === null) return `${CONSOLE_RECORDS_BASE}${rest}`;
  const key = typeof door === 'string' ? door : door.key;
  return `${CONSOLE_DOOR_PROXY_PREFIX}${key}${RECORDS_PLANE_PATH}${rest}`;
}

/** A record path's JSON, read with the door token when it is read from a door: the record answers are protocol types. */
function ask<T extends object>(url: string, token: string | null, signal?: AbortSignal): Promise<JsonAnswer<T>> {
  return getJson(url, { read: objectBody<T>(url), token, signal });
}

const failure = (answer: { status: number | null; why: string }) => new ConsoleApiError(answer.why, answer.status);

/**
 * A record path's answer: the door's when it answers one, else mur console's (a door gone, refusing, or older than
 * the plane). Null when neither holds it (404); a problem from mur console is thrown.
 */
export async function readRecordJson<T extends object>(rest: string, options: RecordReadOptions): Promise<T | null> {
  if (options.door) {
    const fromDoor = await ask<T>(recordUrl(rest, options.door), options.door.token, options.signal);
    if (fromDoor.ok) return fromDoor.body;
  }
  const local = await ask<T>(recordUrl(rest), null, options.signal);
  if (local.ok) return local.body;
  if (local.status === 404) return null;
  throw failure(local);
}

/**
 * The entries of a task's record's first page: fewer than the rest's, so the page draws its trace sooner while the
 * rest come (a 10,000-span record's first page of 1,000 took ~40–260 ms more to answer, carry and draw, issue 37).
 */
const RECORD_FIRST_PAGE = 200;
/** The entries of each further page. */
const RECORD_PAGE = 1000;
/** The most entries of a task's record the console reads. */
const RECORD_ENTRIES_MAX = 20_000;

/** What a record holds so far while its further pages are read: `total` is every entry the record has. */
export interface PartialRecord {
  task: TaskRecordSummary;
  entries: TaskRecordEntry[];
  members: ReadonlyMap<string, TaskRecordMember>;
  from: 'door' | 'console';
  total: number;
}

/**
 * Every page of a task's record from one place (a door, or mur console); null when it does not hold the task.
 * `onPage` sees what the pages read so far hold, after each page but the last (a long record draws as it comes).
 */
async function readPages(taskId: string, door: RecordDoor | null, signal?: AbortSignal, onPage?: (partial: PartialRecord) => void) {
  let task: TaskRecordSummary | null = null;
  const entries: TaskRecordEntry[] = [];
  const members = new Map<string, TaskRecordMember>();
  let cursor: string | null = '0';
  for (let pages = 0; cursor !== null && entries.length < RECORD_ENTRIES_MAX; pages++) {
    const limit = Math.min(pages === 0 ? RECORD_FIRST_PAGE : RECORD_PAGE, RECORD_ENTRIES_MAX - entries.length);
    const answer: JsonAnswer<ConsoleTaskRecordPage> = await ask<ConsoleTaskRecordPage>(
      recordUrl(`/tasks/${encodeURIComponent(taskId)}?cursor=${cursor}&limit=${limit}`, door),
      door?.token ?? null,
      signal,
    );
    if (!answer.ok) {
      if (pages === 0) return answer;
      break;
    }
    const page: ConsoleTaskRecordPage = answer.body;
    task = page.task;
    entries.push(...page.entries);
    // `?? []`: a mur console from before members were sent (a `vite dev` console against an older one).
    for (const member of page.members ?? []) if (!members.has(member.task.taskId)) members.set(member.task.taskId, member);
    cursor = page.nextCursor;
    if (cursor !== null && onPage)
      onPage({ task, entries: [...entries], members: new Map(members), from: door === null ? 'console' : 'door', total: page.total });
  }
  return task ? { task, entries, members, complete: cursor === null, from: door === null ? ('console' as const) : ('door' as const) } : null;
}

/** The door key (host:port) of a member's door URL, or null. */
function keyOfUrl(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/**
 * The member tasks a record's call-member entries started that its answer did not carry (their records are on the
 * members' doors, not the caller's), read from each member's door (`memberCall.memberUrl`), then mur console's
 * records; theirs in turn, RECORD_MEMBER_DEPTH levels, RECORD_MEMBERS_MAX in all. A member not reached is left out.
 */
async function addMembersFromDoors(entries: readonly TaskRecordEntry[], members: Map<string, TaskRecordMember>, signal?: AbortSignal) {
  let level: readonly TaskRecordEntry[] = [...entries, ...[...members.values()].flatMap((m) => m.entries)];
  for (let depth = 1; depth <= RECORD_MEMBER_DEPTH && members.size < RECORD_MEMBERS_MAX; depth++) {
    const next: TaskRecordEntry[] = [];
    for (const entry of level) {
      if (entry.kind !== 'tool-call' || !entry.memberCall?.memberTaskId || members.has(entry.memberCall.memberTaskId)) continue;
      if (members.size >= RECORD_MEMBERS_MAX) break;
      const key = entry.memberCall.memberUrl ? keyOfUrl(entry.memberCall.memberUrl) : null;
      const door = key === null ? null : { key, token: null };
      const id = entry.memberCall.memberTaskId;
      const page = await readRecordJson<ConsoleTaskRecordPage>(`/tasks/${encodeURIComponent(id)}?cursor=0&limit=1000`, { signal, door }).catch(() => null);
      if (page === null) continue;
      members.set(id, { task: page.task, entries: page.entries.slice(0, RECORD_MEMBER_ENTRIES_MAX) });
      next.push(...page.entries);
      for (const member of page.members ?? []) if (!members.has(member.task.taskId)) members.set(member.task.taskId, member);
    }
    level = next;
  }
}

/**
 * A task's whole record (every page) with its formation member tasks' records, which each page carries for its own
 * entries and the members' doors serve for theirs (docs/console.md, "Formations"), by task id; null when neither the
 * door nor the records on mur console's host hold it.
 */
export async function readTaskRecord(taskId: string, options: RecordReadOptions & { onPage?: (partial: PartialRecord) => void } = {}) {
  let record = options.door ? await readPages(taskId, options.door, options.signal, options.onPage) : null;
  if (record === null || 'ok' in record) {
    const local = await readPages(taskId, null, options.signal, options.onPage);
    if (local !== null && 'ok' in local) {
      if (local.status === 404) return null;
      throw failure(local);
    }
    record = local;
  }
  if (record === null) return null;
  await addMembersFromDoors(record.entries, record.members, options.signal);
  return record;
}

/** The summaries of the given tasks that the door, else the records on this host, hold. */
export async function readSummaries(ids: string[], options: RecordReadOptions = {}): Promise<TaskRecordSummary[]> {
  if (ids.length === 0) return [];
  const body = await readRecordJson<ConsoleTaskSummariesResponse>(`/tasks?ids=${ids.map(encodeURIComponent).join(',')}`, options);
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
export function searchSession(sessionId: string, search: SessionSearch, options: RecordReadOptions = {}) {
  const query = new URLSearchParams({ q: search.q, cursor: search.cursor ?? '0' });
  if (search.state) query.set('state', search.state);
  if (search.contextId) query.set('contextId', search.contextId);
  if (search.since) query.set('since', search.since);
  if (search.limit !== undefined) query.set('limit', String(search.limit));
  return readRecordJson<ConsoleTaskSummariesPage>(`/sessions/${encodeURIComponent(sessionId)}/tasks?${query}`, options);
}

/** The tasks table's filters, as the rollup takes them (docs/console.md, "Rollups"). */
export type RollupSearch = Omit<SessionSearch, 'limit' | 'cursor'>;

/**
 * Where the time and the tokens went in one session's tasks, or several sessions' (a formation's members), kept by
 * the tasks table's filters: computed from the records by the door (one session, its record plane first) or by mur
 * console, never task by task in the page. Null when the records are found neither on the door nor on this host.
 */
export function readRollup(sessions: { sessionId: string } | { sessionIds: readonly string[] }, search: RollupSearch, options: RecordReadOptions = {}) {
  const query = new URLSearchParams();
  if ('sessionIds' in sessions) query.set('sessions', sessions.sessionIds.join(','));
  if (search.q) query.set('q', search.q);
  if (search.state) query.set('state', search.state);
  if (search.contextId) query.set('contextId', search.contextId);
  if (search.since) query.set('since', search.since);
  if ('sessionId' in sessions)
    return readRecordJson<ConsoleRollup>(`/sessions/${encodeURIComponent(sessions.sessionId)}${CONSOLE_ROLLUP_SUFFIX}?${query}`, options);
  return readRecordJson<ConsoleRollup>(`${CONSOLE_ROLLUP_SUFFIX}?${query}`, { ...options, door: null });
}

/**
 * The id of the session whose door serves at `door` (host:port): the door's own, when `options.door` is given and its
 * record plane answers; else, from the records on this host, the newest one not ended, else the newest. Null when neither names it.
 */
export async function recordSessionOfDoor(door: string, options: RecordReadOptions = {}): Promise<string | null> {
  return (await findRecordSession(door, options))?.sessionId ?? null;
}

/** recordSessionOfDoor, saying where the session's record is read: the door's plane, or mur console's records. */
export async function findRecordSession(door: string, options: RecordReadOptions = {}): Promise<{ sessionId: string; from: 'door' | 'console' } | null> {
  if (options.door) {
    const fromDoor = await ask<ConsoleRecordSessionsResponse>(recordUrl('/sessions', options.door), options.door.token, options.signal);
    if (fromDoor.ok && Array.isArray(fromDoor.body.sessions) && fromDoor.body.sessions.length > 0)
      return { sessionId: fromDoor.body.sessions[0].sessionId, from: 'door' };
  }
  const body = await readRecordJson<ConsoleRecordSessionsResponse>('/sessions', { ...options, door: null });
  const hostOf = (url: string | null) => {
    try {
      return url === null ? null : new URL(url).host;
    } catch {
      return null;
    }
  };
  const mine = (body?.sessions ?? []).filter((s) => hostOf(s.url) === door);
  const found = mine.find((s) => s.state !== 'ended') ?? mine[0];
  return found ? { sessionId: found.sessionId, from: 'console' } : null;
}

/** The record path of a session's artifacts (docs/artifacts.md): declared, pulled, removed. */
export const artifactsPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}${CONSOLE_ARTIFACTS_SUFFIX}`;

/** The record path of a session's peer handles. */
export const peerHandlesPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}${CONSOLE_PEER_HANDLES_SUFFIX}`;

/** Where a whole session's record downloads as NDJSON: from its door (`door`: host:port) or from mur console. */
export const sessionExportUrl = (sessionId: string, door: string | null = null) => recordUrl(`/sessions/${encodeURIComponent(sessionId)}/export`, door);

/** Where a task's record downloads as NDJSON: from its door (`door`: host:port) or from mur console. */
export const exportUrl = (taskId: string, door: string | null = null) => recordUrl(`/tasks/${encodeURIComponent(taskId)}/export`, door);

/**
 * Downloads an export that needs the door token (a link cannot carry `Authorization`): read with the token into a
 * Blob, saved under `filename`; from mur console's records when the door does not answer.
 */
export async function downloadExport(doorUrl: string, localUrl: string, token: string | null, filename: string): Promise<void> {
  let response = await consoleFetch(doorUrl, { headers: token === null ? {} : { authorization: `Bearer ${token}` } }).catch(() => null);
  if (response === null || !response.ok) response = await consoleFetch(localUrl);
  if (!response.ok) throw new ConsoleApiError(`${localUrl} answered HTTP ${response.status}`, response.status);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
