import path from 'node:path';
import {
  CONSOLE_PEER_HANDLES_SUFFIX,
  CONSOLE_ROLLUP_SUFFIX,
  type ConsoleRollup,
  type ConsolePeerHandlesResponse,
  type ConsoleRecordSession,
  type ConsoleRecordSessionsResponse,
  type ConsoleTaskRecordPage,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  type HttpRefusalBody,
  isId,
  memberTaskIds,
  RECORD_CALLS_SUFFIX,
  RECORD_FORMATION_SUFFIX,
  type RecordFormationResponse,
  RECORD_IDS_MAX,
  RECORD_MEMBER_DEPTH,
  RECORD_MEMBER_ENTRIES_MAX,
  RECORD_MEMBERS_MAX,
  RECORD_PAGE_CHARS_MAX,
  RECORD_PAGE_DEFAULT,
  RECORD_PAGE_MAX,
  type RecordMemberCall,
  type RecordMemberCallsResponse,
  recordNotFoundRefusal,
  recordQueryRefusal,
  ROLLUP_SESSIONS_MAX,
  TASK_STATES,
  type TaskRecordEntry,
  type TaskRecordMember,
  type TaskRecordMemberCall,
} from '@murmur/protocol';
import { consoleMemberCall, memberCallsOf } from './member-call-records.js';
import { peerHandlesOf } from './peer-handle-records.js';
import { readStoredTasks } from './store-reader.js';
import { matches, recordEntries, recordSummary } from './task-records.js';
import type { TraceLine } from './trace-schema.js';
import { type RollupTask, rollupTasks } from './task-rollup.js';
import { type ParsedTrace, readTrace } from './trace-reader.js';

/**
 * Where records are read from: mur console's every session on its host, or a door's own session. One source answers
 * both addresses of the record (docs/console.md, "Every door serves its record"), so there is one record, not two.
 */
export interface RecordSource {
  sessions(): ConsoleRecordSession[];
  /** Whether parsed traces may be kept between requests (mur console's cache); a door keeps none. */
  readonly cacheTraces: boolean;
  /** A formation member's door by its roster name, as this session's seat knows it (a door's own source). */
  memberUrl?(member: string): string | null;
  /** The formation this session is a member of, as its seat knows it (a door's own source). */
  formation?(): RecordFormationResponse | null;
}

/** What a record request is answered: JSON, NDJSON lines to write one by one, or an HTTP refusal. */
export type RecordAnswer =
  | { kind: 'json'; body: unknown }
  | { kind: 'ndjson'; filename: string; lines: () => AsyncIterable<string> | Iterable<string> }
  | { kind: 'refusal'; body: HttpRefusalBody };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

class QueryError extends Error {}

interface Paging {
  offset: number;
  limit: number;
}

/** `limit` and `cursor` as docs/console.md says; anything else is a QueryError naming the parameter. */
function paging(query: URLSearchParams): Paging {
  const limitText = query.get('limit');
  const cursorText = query.get('cursor');
  let limit = RECORD_PAGE_DEFAULT;
  if (limitText !== null && limitText !== '') {
    limit = /^\d+$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= RECORD_PAGE_MAX)) throw new QueryError(`limit must be an integer from 1 to ${RECORD_PAGE_MAX}`);
  }
  let offset = 0;
  if (cursorText !== null && cursorText !== '') {
    offset = /^\d{1,15}$/.test(cursorText) ? Number(cursorText) : Number.NaN;
    if (Number.isNaN(offset)) throw new QueryError('cursor must be a nextCursor this API answered (a non-negative integer)');
  }
  return { offset, limit };
}

/**
 * The page of `items` from `offset`: at most `limit`, and no more once their JSON passes RECORD_PAGE_CHARS_MAX (the
 * first always goes), as ListTasks windows its text (docs/reliability.md).
 */
function pageOf<T>(items: readonly T[], { offset, limit }: Paging): { page: T[]; nextCursor: string | null } {
  const page: T[] = [];
  let chars = 0;
  for (let i = offset; i < items.length && page.length < limit; i++) {
    chars += JSON.stringify(items[i]).length;
    if (page.length > 0 && chars > RECORD_PAGE_CHARS_MAX) break;
    page.push(items[i]);
  }
  const end = offset + page.length;
  return { page, nextCursor: end < items.length ? String(end) : null };
}

interface Filters {
  q: string;
  state: string | null;
  contextId: string | null;
  sinceMs: number | null;
}

function filters(query: URLSearchParams): Filters {
  const state = query.get('state') || null;
  if (state !== null && !(TASK_STATES as readonly string[]).includes(state)) throw new QueryError(`state must be a task state (${TASK_STATES.join(', ')})`);
  const since = query.get('since') || null;
  const sinceMs = since === null ? null : RFC3339.test(since) ? Date.parse(since) : Number.NaN;
  if (sinceMs !== null && Number.isNaN(sinceMs)) throw new QueryError('since must be an RFC 3339 time, such as 2026-10-13T09:00:00Z');
  return { q: (query.get('q') ?? '').trim(), state, contextId: query.get('contextId') || null, sinceMs };
}

const callsMember = (records: readonly TraceLine[]) => records.some((r) => r.type === 'tool_call' && r.tool === 'call-member');

/** One request's reading of a source: each trace parsed once for the request, whatever the source caches. */
class RecordReading {
  readonly #traces = new Map<string, ParsedTrace>();
  #sessions: ConsoleRecordSession[] | null = null;

  constructor(private readonly source: RecordSource) {}

  sessions(): ConsoleRecordSession[] {
    this.#sessions ??= this.source.sessions();
    return this.#sessions;
  }

  session(sessionId: string): ConsoleRecordSession | null {
    return isId('session', sessionId) ? (this.sessions().find((s) => s.sessionId === sessionId) ?? null) : null;
  }

  trace(session: ConsoleRecordSession): ParsedTrace {
    let trace = this.#traces.get(session.recordsDir);
    if (!trace) {
      trace = readTrace(path.join(session.recordsDir, 'trace.jsonl'), { cache: this.source.cacheTraces });
      this.#traces.set(session.recordsDir, trace);
    }
    return trace;
  }

  /** The session holding a task: task ids are unique across sessions (UUIDv7), so the first trace naming it. */
  sessionOfTask(taskId: string): ConsoleRecordSession | null {
    return this.sessions().find((s) => this.trace(s).tasks.has(taskId)) ?? null;
  }

  /** The summaries of a session's tasks, newest change first, kept by the filters. */
  async summaries(session: ConsoleRecordSession, f: Filters) {
    const trace = this.trace(session);
    return (await readStoredTasks(session.recordsDir))
      .filter((row) => (f.state === null || row.state === f.state) && (f.contextId === null || row.contextId === f.contextId))
      .filter((row) => f.sinceMs === null || row.statusTimestampMs > f.sinceMs)
      .map((row) => ({ summary: recordSummary(session.sessionId, row, trace.tasks.get(row.id) ?? []), row, records: trace.tasks.get(row.id) ?? [] }))
      .filter(({ summary, records }) => f.q === '' || matches(summary, records, f.q));
  }

  /** The member calls a task's call-member tool calls made, by tool call id, each with the member task's session. */
  memberCalls(taskId: string, records: readonly TraceLine[]): Map<string, TaskRecordMemberCall> | undefined {
    if (!callsMember(records)) return undefined;
    const byToolCall = new Map<string, TaskRecordMemberCall>();
    for (const call of memberCallsOf(taskId, records)) {
      if (call.toolCallId === null) continue;
      const memberSession = call.memberTaskId === null ? null : this.sessionOfTask(call.memberTaskId);
      byToolCall.set(call.toolCallId, {
        callId: call.callId,
        member: call.member,
        memberTaskId: call.memberTaskId,
        memberSessionId: memberSession?.sessionId ?? null,
        memberUrl: memberSession?.url ?? this.source.memberUrl?.(call.member) ?? null,
        status: call.status,
        elapsedMs: call.elapsedMs,
        offers: call.offers,
      });
    }
    return byToolCall;
  }

  async taskRecord(taskId: string) {
    const session = this.sessionOfTask(taskId);
    if (!session) return null;
    const [row] = await readStoredTasks(session.recordsDir, taskId);
    if (!row) return null;
    const records = this.trace(session).tasks.get(taskId) ?? [];
    return { summary: recordSummary(session.sessionId, row, records), entries: recordEntries(row, records, this.memberCalls(taskId, records)) };
  }

  /** The records of the member tasks `entries` started, and theirs in turn, as `ConsoleTaskRecordPage.members` holds them. */
  async memberRecords(entries: readonly TaskRecordEntry[]): Promise<TaskRecordMember[]> {
    const members: TaskRecordMember[] = [];
    const read = new Set<string>();
    let wanted = memberTaskIds(entries);
    for (let depth = 1; depth <= RECORD_MEMBER_DEPTH && wanted.length > 0; depth++) {
      const next: string[] = [];
      for (const id of wanted) {
        if (read.has(id) || members.length >= RECORD_MEMBERS_MAX) continue;
        read.add(id);
        const record = await this.taskRecord(id);
        if (!record) continue;
        members.push({ task: record.summary, entries: record.entries.slice(0, RECORD_MEMBER_ENTRIES_MAX) });
        next.push(...memberTaskIds(record.entries));
      }
      wanted = next;
    }
    return members;
  }

  /** The member calls each session's trace records as the caller, newest start first. */
  calls(session: ConsoleRecordSession, caller: string): RecordMemberCall[] {
    const calls: RecordMemberCall[] = [];
    for (const [taskId, records] of this.trace(session).tasks) {
      for (const call of memberCallsOf(taskId, records)) {
        const calleeSessionId = call.memberTaskId === null ? null : (this.sessionOfTask(call.memberTaskId)?.sessionId ?? null);
        calls.push({
          ...consoleMemberCall(call, { caller, callerSessionId: session.sessionId, callerTaskId: taskId, calleeSessionId }),
          calleeUrl: this.source.memberUrl?.(call.member) ?? null,
        });
      }
    }
    return calls.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.callId.localeCompare(b.callId));
  }
}

const json = (body: unknown): RecordAnswer => ({ kind: 'json', body });

/** The rollup of `sessions`' tasks kept by the tasks table's filters (docs/console.md, "Where the time and the tokens went"). */
async function sessionsRollup(reading: RecordReading, sessions: readonly ConsoleRecordSession[], missing: string[], query: URLSearchParams): Promise<ConsoleRollup> {
  const f = filters(query);
  const readAtMs = Date.now();
  const tasks: RollupTask[] = [];
  for (const session of sessions) {
    for (const { summary, row, records } of await reading.summaries(session, f)) tasks.push({ summary, entries: () => recordEntries(row, records) });
  }
  const shown = { q: f.q, state: f.state ?? '', contextId: f.contextId ?? '', since: query.get('since') ?? '' };
  return rollupTasks(tasks, { sessionIds: sessions.map((s) => s.sessionId), missing, filters: shown, readAtMs });
}

/**
 * Answers one GET of the record: `rest` is the path after the record's base (`/api/records` on mur console,
 * `/resources/records` on a door), already percent-decoded segment by segment; `shown` is the path as the refusal
 * names it. Every path and shape is docs/console.md's table.
 */
export async function answerRecordRequest(source: RecordSource, rest: string, query: URLSearchParams, shown: string): Promise<RecordAnswer> {
  const reading = new RecordReading(source);
  const notFound: RecordAnswer = { kind: 'refusal', body: recordNotFoundRefusal(shown) };
  const parts = rest.split('/').slice(1);
  try {
    if (parts.length === 1 && parts[0] === 'sessions') return json({ sessions: reading.sessions() } satisfies ConsoleRecordSessionsResponse);
    if (`/${parts.join('/')}` === RECORD_CALLS_SUFFIX) {
      const calls = reading.sessions().flatMap((s) => reading.calls(s, s.name ?? s.sessionId));
      const [only] = reading.sessions();
      return json({ sessionId: only?.sessionId ?? '', calls } satisfies RecordMemberCallsResponse);
    }
    if (`/${parts.join('/')}` === RECORD_FORMATION_SUFFIX) {
      const formation = source.formation?.() ?? null;
      return formation === null ? notFound : json(formation satisfies RecordFormationResponse);
    }
    if (parts[0] === 'sessions' && parts.length === 3) {
      const session = reading.session(parts[1]);
      if (!session) return notFound;
      if (parts[2] === 'tasks') {
        const f = filters(query);
        const p = paging(query);
        const summaries = (await reading.summaries(session, f)).map(({ summary }) => summary);
        const { page, nextCursor } = pageOf(summaries, p);
        return json({ session, tasks: page, total: summaries.length, nextCursor } satisfies ConsoleTaskSummariesPage);
      }
      if (parts[2] === 'export') return { kind: 'ndjson', filename: `${session.sessionId}.ndjson`, lines: () => sessionLines(reading, session) };
      if (`/${parts[2]}` === CONSOLE_ROLLUP_SUFFIX) return json(await sessionsRollup(reading, [session], [], query));
      if (`/${parts[2]}` === CONSOLE_PEER_HANDLES_SUFFIX) {
        const handles = peerHandlesOf(reading.trace(session).handles, { nowMs: Date.now(), sessionEnded: session.state !== 'live' });
        return json({ sessionId: session.sessionId, handles } satisfies ConsolePeerHandlesResponse);
      }
      return notFound;
    }
    if (`/${parts.join('/')}` === CONSOLE_ROLLUP_SUFFIX) {
      const asked = [...new Set((query.get('sessions') ?? '').split(',').filter((id) => id !== ''))];
      const found = asked.slice(0, ROLLUP_SESSIONS_MAX).flatMap((id) => reading.session(id) ?? []);
      const missing = asked.filter((id) => !found.some((s) => s.sessionId === id));
      return json(await sessionsRollup(reading, found, missing, query));
    }
    if (parts.length === 1 && parts[0] === 'tasks') {
      const ids = [...new Set((query.get('ids') ?? '').split(',').filter((id) => isId('task', id)))].slice(0, RECORD_IDS_MAX);
      const tasks: ConsoleTaskSummariesResponse['tasks'] = [];
      for (const session of ids.length > 0 ? reading.sessions() : []) {
        const trace = reading.trace(session);
        const wanted = new Set(ids.filter((id) => trace.tasks.has(id)));
        if (wanted.size === 0) continue;
        for (const row of await readStoredTasks(session.recordsDir)) {
          if (wanted.has(row.id)) tasks.push(recordSummary(session.sessionId, row, trace.tasks.get(row.id) ?? []));
        }
      }
      return json({ tasks } satisfies ConsoleTaskSummariesResponse);
    }
    if (parts[0] === 'tasks' && (parts.length === 2 || (parts.length === 3 && parts[2] === 'export'))) {
      const taskId = parts[1];
      const p = parts.length === 2 ? paging(query) : null;
      const record = isId('task', taskId) ? await reading.taskRecord(taskId) : null;
      if (!record) return notFound;
      if (p === null) {
        return {
          kind: 'ndjson',
          filename: `${taskId}.ndjson`,
          lines: function* () {
            yield JSON.stringify({ kind: 'task', ...record.summary });
            for (const entry of record.entries) yield JSON.stringify(entry);
          },
        };
      }
      const { page, nextCursor } = pageOf(record.entries, p);
      const body: ConsoleTaskRecordPage = { task: record.summary, entries: page, total: record.entries.length, nextCursor, members: await reading.memberRecords(page) };
      return json(body);
    }
    return notFound;
  } catch (error) {
    if (error instanceof QueryError) return { kind: 'refusal', body: recordQueryRefusal(error.message) };
    throw error;
  }
}

/** A whole session's record: the session, then each task (newest change first) followed by its entries, each with its taskId. */
async function* sessionLines(reading: RecordReading, session: ConsoleRecordSession): AsyncGenerator<string> {
  yield JSON.stringify({ kind: 'session', ...session });
  for (const { summary, row, records } of await reading.summaries(session, { q: '', state: null, contextId: null, sinceMs: null })) {
    yield JSON.stringify({ kind: 'task', ...summary });
    for (const entry of recordEntries(row, records, reading.memberCalls(summary.taskId, records))) yield JSON.stringify({ taskId: summary.taskId, ...entry });
  }
}
