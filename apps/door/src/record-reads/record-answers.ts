import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  CONSOLE_ARTIFACTS_SUFFIX,
  type ConsoleArtifactsResponse,
  CONSOLE_PEER_HANDLES_SUFFIX,
  CONSOLE_ROLLUP_SUFFIX,
  type ConsoleFormationDelegation,
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
  type TaskRecordSummary,
} from '@murmur/protocol';
import { artifactsOf } from './artifact-records.js';
import { consoleDelegation, delegationsOf } from './delegation-records.js';
import { consoleMemberCall, memberCallsOf } from './member-call-records.js';
import { peerHandlesOf } from './peer-handle-records.js';
import { readStoredTasks } from './store-reader.js';
import type { StoredTask } from '../records/task-table.js';
import { matches, type OrderedEntry, orderedEntries, recordEntries, recordSummary, withToolCallInFull } from './task-records.js';
import { type RollupTask, rollupTasks } from './task-rollup.js';
import { type IndexedTask, type TraceIndex, traceIndex, traceIndexKept } from './trace-index.js';
import { fileMentions } from './trace-mentions.js';
import type { TraceLine } from '../records/trace-schema.js';

/**
 * Where records are read from: mur console's every session on its host, or a door's own session. One source answers
 * both addresses of the record (docs/console.md, "Every door serves its record"), so there is one record, not two.
 */
export interface RecordSource {
  sessions(): ConsoleRecordSession[] | Promise<ConsoleRecordSession[]>;
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
 * The page of `count` items from `offset`, each loaded as it is placed: at most `limit`, and no more once their JSON
 * passes RECORD_PAGE_CHARS_MAX (the first always goes), as ListTasks windows its text (docs/reliability.md).
 */
async function pageOf<T>(count: number, { offset, limit }: Paging, items: AsyncIterable<T>): Promise<{ page: T[]; nextCursor: string | null }> {
  const page: T[] = [];
  let chars = 0;
  for await (const item of items) {
    if (page.length === limit) break;
    chars += JSON.stringify(item).length;
    if (page.length > 0 && chars > RECORD_PAGE_CHARS_MAX) break;
    page.push(item);
  }
  const end = offset + page.length;
  return { page, nextCursor: end < count ? String(end) : null };
}

/** load(i) for each i from `from` up to `to`, as they are asked for. */
async function* loaded<T>(from: number, to: number, load: (i: number) => Promise<T>): AsyncGenerator<T> {
  for (let i = from; i < to; i++) yield await load(i);
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

/** A session's task: its stored row and its lines in the session's trace index (none when its records are lost). */
interface SessionTask {
  row: StoredTask;
  task: IndexedTask | undefined;
}

/** A task's record as read for one request: its summary, and its entries ordered from its light records. */
interface TaskRecordReading {
  summary: TaskRecordSummary;
  ordered: OrderedEntry[];
  /** The entries as the record shows them, in the order given: each tool call's input and output read in full from its line, all in one read. */
  inFull(entries: readonly OrderedEntry[]): Promise<TaskRecordEntry[]>;
  /** The bytes inFull() reads for an entry: its line's for a tool call, none for the rest. */
  fullBytes(entry: OrderedEntry): number;
}

/**
 * Each task's ordered entries by its light records (TraceIndex.light): they live as long as the index keeps those
 * records as its last light read, and no longer.
 */
const orderedOf = new WeakMap<readonly TraceLine[], { rowKey: string; ordered: OrderedEntry[] }>();

/** The bytes of tool-call lines one batch of inFull() reads at most (a longer line is read alone). */
const FULL_BATCH_BYTES = 1 << 20;

/**
 * A task's entries from `offset` up to `end` as the record shows them, read in batches: each batch's tool calls in one read of at
 * most FULL_BATCH_BYTES of their lines, so a page or an export opens the trace once a batch, not once a tool call,
 * and holds one batch at a time.
 */
async function* entriesInFull(record: TaskRecordReading, offset = 0, end = Number.POSITIVE_INFINITY): AsyncGenerator<TaskRecordEntry> {
  const ordered = record.ordered.slice(0, end);
  for (let i = offset; i < ordered.length; ) {
    let j = i + 1;
    let bytes = record.fullBytes(ordered[i]);
    while (j < ordered.length && bytes + record.fullBytes(ordered[j]) <= FULL_BATCH_BYTES) bytes += record.fullBytes(ordered[j++]);
    yield* await record.inFull(ordered.slice(i, j));
    i = j;
  }
}

/**
 * One request's reading of a source: each session's trace index refreshed once for the request, and only the lines
 * the answer needs read (docs/console.md, "Read through an index, never whole").
 */
class RecordReading {
  readonly #indexes = new Map<string, TraceIndex>();
  #sessions: ConsoleRecordSession[] | null = null;

  constructor(private readonly source: RecordSource) {}

  async sessions(): Promise<ConsoleRecordSession[]> {
    this.#sessions ??= await this.source.sessions();
    return this.#sessions;
  }

  async session(sessionId: string): Promise<ConsoleRecordSession | null> {
    return isId('session', sessionId) ? ((await this.sessions()).find((s) => s.sessionId === sessionId) ?? null) : null;
  }

  /** A session's index, refreshed once for the request; `keep`: a task whose records the request reads light (TraceIndex.refresh). */
  async index(session: ConsoleRecordSession, keep?: string): Promise<TraceIndex> {
    let index = this.#indexes.get(session.recordsDir);
    if (!index) {
      index = await traceIndex(path.join(session.recordsDir, 'trace.jsonl'), { keep });
      this.#indexes.set(session.recordsDir, index);
    }
    return index;
  }

  /**
   * The session holding a task: task ids are unique across sessions (UUIDv7), so the first trace naming it. `read`:
   * its records are read next, so an index built now keeps them light as it decodes them. The sessions whose indexes
   * are kept are asked first; of the others, only a trace holding the id's bytes is indexed (trace-mentions.ts), so
   * opening one task does not decode every other session's trace on the host.
   */
  async sessionOfTask(taskId: string, read = false): Promise<ConsoleRecordSession | null> {
    const keep = read ? taskId : undefined;
    const sessions = await this.sessions();
    const traceOf = (session: ConsoleRecordSession) => path.join(session.recordsDir, 'trace.jsonl');
    const indexed = sessions.filter((s) => this.#indexes.has(s.recordsDir) || traceIndexKept(traceOf(s)));
    for (const session of indexed) if ((await this.index(session, keep)).tasks.has(taskId)) return session;
    for (const session of sessions) {
      if (indexed.includes(session) || !(await fileMentions(traceOf(session), taskId))) continue;
      if ((await this.index(session, keep)).tasks.has(taskId)) return session;
    }
    return null;
  }

  /** A session's tasks kept by the filters, newest change first; a search reads each task's input and replies alone. */
  async filtered(session: ConsoleRecordSession, f: Filters): Promise<SessionTask[]> {
    const index = await this.index(session);
    const kept: SessionTask[] = [];
    for (const row of await readStoredTasks(session.recordsDir)) {
      if ((f.state !== null && row.state !== f.state) || (f.contextId !== null && row.contextId !== f.contextId)) continue;
      if (f.sinceMs !== null && !(row.statusTimestampMs > f.sinceMs)) continue;
      const task = index.tasks.get(row.id);
      if (f.q !== '' && !(await this.#matches(session, { row, task }, f.q))) continue;
      kept.push({ row, task });
    }
    return kept;
  }

  async summary(session: ConsoleRecordSession, { row, task }: SessionTask): Promise<TaskRecordSummary> {
    const start = task ? await (await this.index(session)).first(task, 'task_start') : null;
    return recordSummary(session.sessionId, row, { input: start?.text ?? null, turns: task?.turns ?? 0, toolCalls: task?.toolCalls ?? 0 });
  }

  /** Whether the task's input, replies, answer, status text or id hold `query`: its input and replies read in one pass. */
  async #matches(session: ConsoleRecordSession, { row, task }: SessionTask, query: string): Promise<boolean> {
    let input: string | null = null;
    const replies: string[] = [];
    if (task) {
      const index = await this.index(session);
      for await (const { record } of index.read(index.linesOf(task, ['task_start', 'task_resumed']))) {
        if (record.type === 'task_start') input ??= record.text;
        else if (record.type === 'task_resumed') replies.push(record.reply);
      }
    }
    const summary = recordSummary(session.sessionId, row, { input, turns: task?.turns ?? 0, toolCalls: task?.toolCalls ?? 0 });
    return matches(summary, replies, query);
  }

  /** A task's records, light (record-reads/trace-index.ts): every record, a tool call's input and output left out. */
  async lightRecords(session: ConsoleRecordSession, task: IndexedTask | undefined, handle?: FileHandle): Promise<{ lines: number[]; records: TraceLine[] }> {
    return task ? (await this.index(session)).light(task, handle) : { lines: [], records: [] };
  }

  /** The member calls a task's call-member tool calls made, by tool call id, each with the member task's session. */
  async memberCalls(taskId: string, records: readonly TraceLine[]): Promise<Map<string, TaskRecordMemberCall> | undefined> {
    if (!records.some((r) => r.type === 'tool_call' && r.tool === 'call-member')) return undefined;
    const byToolCall = new Map<string, TaskRecordMemberCall>();
    for (const call of memberCallsOf(taskId, records)) {
      if (call.toolCallId === null) continue;
      const memberSession = call.memberTaskId === null ? null : await this.sessionOfTask(call.memberTaskId);
      byToolCall.set(call.toolCallId, {
        callId: call.callId,
        member: call.member,
        memberTaskId: call.memberTaskId,
        memberSessionId: memberSession?.sessionId ?? null,
        memberUrl: memberSession?.url ?? this.source.memberUrl?.(call.member) ?? null,
        status: call.status,
        startedAt: new Date(call.startedMs).toISOString(),
        elapsedMs: call.elapsedMs,
        offers: call.offers,
      });
    }
    return byToolCall;
  }

  /**
   * A task's entries ordered from its light records: kept with those records while its row is the same and it called
   * no member (a member's session and door may change), so paging through a task orders its entries once.
   */
  async #ordered(row: StoredTask, records: readonly TraceLine[]): Promise<OrderedEntry[]> {
    const memberCalls = await this.memberCalls(row.id, records);
    if (memberCalls !== undefined) return orderedEntries(row, records, memberCalls);
    const rowKey = JSON.stringify(row);
    const kept = orderedOf.get(records);
    if (kept?.rowKey === rowKey) return kept.ordered;
    const ordered = orderedEntries(row, records);
    orderedOf.set(records, { rowKey, ordered });
    return ordered;
  }

  /** A task's record of one of the session's tasks. */
  async record(session: ConsoleRecordSession, { row, task }: SessionTask): Promise<TaskRecordReading> {
    const index = await this.index(session);
    const light = await this.lightRecords(session, task);
    const start = light.records.find((r) => r.type === 'task_start');
    const summary = recordSummary(session.sessionId, row, {
      input: start?.type === 'task_start' ? start.text : null,
      turns: task?.turns ?? 0,
      toolCalls: task?.toolCalls ?? 0,
    });
    const ordered = await this.#ordered(row, light.records);
    const lineOf = ({ entry, from }: OrderedEntry) => (entry.kind === 'tool-call' ? light.lines[from] : null);
    const inFull = async (entries: readonly OrderedEntry[]): Promise<TaskRecordEntry[]> => {
      const lines = [...new Set(entries.map(lineOf).filter((n) => n !== null))].sort((a, b) => a - b);
      const full = new Map<number, TraceLine>();
      for await (const { line, record } of index.read(lines)) full.set(line, record);
      return entries.map((o) => {
        const record = full.get(lineOf(o) ?? -1);
        return record ? withToolCallInFull(o.entry, record) : o.entry;
      });
    };
    const fullBytes = (o: OrderedEntry) => {
      const line = lineOf(o);
      return line === null ? 0 : index.bytesOf(line);
    };
    return { summary, ordered, inFull, fullBytes };
  }

  async taskRecord(taskId: string): Promise<TaskRecordReading | null> {
    const session = await this.sessionOfTask(taskId, true);
    if (!session) return null;
    const [row] = await readStoredTasks(session.recordsDir, taskId);
    if (!row) return null;
    return this.record(session, { row, task: (await this.index(session)).tasks.get(taskId) });
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
        const shown: TaskRecordEntry[] = [];
        for await (const entry of entriesInFull(record, 0, RECORD_MEMBER_ENTRIES_MAX)) shown.push(entry);
        members.push({ task: record.summary, entries: shown });
        next.push(...memberTaskIds(record.ordered.map((o) => o.entry)));
      }
      wanted = next;
    }
    return members;
  }

  /** The member calls each session's trace records as the caller, newest start first. */
  async calls(session: ConsoleRecordSession, caller: string): Promise<RecordMemberCall[]> {
    const calls: RecordMemberCall[] = [];
    for (const [taskId, task] of (await this.index(session)).tasks) {
      if (!task.callsMember) continue;
      for (const call of memberCallsOf(taskId, (await this.lightRecords(session, task)).records)) {
        const calleeSessionId = call.memberTaskId === null ? null : ((await this.sessionOfTask(call.memberTaskId))?.sessionId ?? null);
        calls.push({
          ...consoleMemberCall(call, { caller, callerSessionId: session.sessionId, callerTaskId: taskId, calleeSessionId }),
          calleeUrl: this.source.memberUrl?.(call.member) ?? null,
        });
      }
    }
    return calls.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.callId.localeCompare(b.callId));
  }

  /** The delegations the session's tasks made, newest start first. */
  async delegations(session: ConsoleRecordSession, member: string): Promise<ConsoleFormationDelegation[]> {
    const delegations: ConsoleFormationDelegation[] = [];
    for (const [taskId, task] of (await this.index(session)).tasks) {
      if (!task.delegates) continue;
      for (const d of delegationsOf(taskId, (await this.lightRecords(session, task)).records))
        delegations.push(consoleDelegation(d, { member, sessionId: session.sessionId }));
    }
    return delegations.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.delegationId.localeCompare(b.delegationId));
  }
}

const json = (body: unknown): RecordAnswer => ({ kind: 'json', body });

/** The rollup of `sessions`' tasks kept by the tasks table's filters (docs/console.md, "Where the time and the tokens went"). */
async function sessionsRollup(
  reading: RecordReading,
  sessions: readonly ConsoleRecordSession[],
  missing: string[],
  query: URLSearchParams,
): Promise<ConsoleRollup> {
  const f = filters(query);
  const readAtMs = Date.now();
  const tasks: RollupTask[] = [];
  // The tasks' records are read one task after another, a session's together: through one handle on its trace at a
  // time, not a file opened and closed for each task (10,000 tasks: 10,000 opens and closes on libuv's pool).
  const open: { session?: ConsoleRecordSession; handle?: Promise<FileHandle | null> } = {};
  const handleOf = async (session: ConsoleRecordSession): Promise<FileHandle | undefined> => {
    if (open.session !== session) {
      await (await open.handle)?.close();
      open.session = session;
      open.handle = reading.index(session).then((index) => index.openTrace());
    }
    return (await open.handle) ?? undefined;
  };
  for (const session of sessions) {
    for (const { row, task } of await reading.filtered(session, f)) {
      tasks.push({
        summary: recordSummary(session.sessionId, row, { input: null, turns: task?.turns ?? 0, toolCalls: task?.toolCalls ?? 0 }),
        entries: async () => recordEntries(row, (await reading.lightRecords(session, task, task && (await handleOf(session)))).records),
      });
    }
  }
  const shown = { q: f.q, state: f.state ?? '', contextId: f.contextId ?? '', since: query.get('since') ?? '' };
  try {
    return await rollupTasks(tasks, { sessionIds: sessions.map((s) => s.sessionId), missing, filters: shown, readAtMs });
  } finally {
    await (await open.handle)?.close();
  }
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
    if (parts.length === 1 && parts[0] === 'sessions') return json({ sessions: await reading.sessions() } satisfies ConsoleRecordSessionsResponse);
    if (`/${parts.join('/')}` === RECORD_CALLS_SUFFIX) {
      const sessions = await reading.sessions();
      const calls: RecordMemberCall[] = [];
      const delegations: ConsoleFormationDelegation[] = [];
      for (const s of sessions) {
        calls.push(...(await reading.calls(s, s.name ?? s.sessionId)));
        delegations.push(...(await reading.delegations(s, s.name ?? s.sessionId)));
      }
      return json({ sessionId: sessions[0]?.sessionId ?? '', calls, delegations } satisfies RecordMemberCallsResponse);
    }
    if (`/${parts.join('/')}` === RECORD_FORMATION_SUFFIX) {
      const formation = source.formation?.() ?? null;
      return formation === null ? notFound : json(formation satisfies RecordFormationResponse);
    }
    if (parts[0] === 'sessions' && parts.length === 3) {
      const session = await reading.session(parts[1]);
      if (!session) return notFound;
      if (parts[2] === 'tasks') {
        const f = filters(query);
        const p = paging(query);
        const kept = await reading.filtered(session, f);
        const { page, nextCursor } = await pageOf(
          kept.length,
          p,
          loaded(p.offset, kept.length, (i) => reading.summary(session, kept[i])),
        );
        return json({ session, tasks: page, total: kept.length, nextCursor } satisfies ConsoleTaskSummariesPage);
      }
      if (parts[2] === 'export') return { kind: 'ndjson', filename: `${session.sessionId}.ndjson`, lines: () => sessionLines(reading, session) };
      if (`/${parts[2]}` === CONSOLE_ROLLUP_SUFFIX) return json(await sessionsRollup(reading, [session], [], query));
      if (`/${parts[2]}` === CONSOLE_ARTIFACTS_SUFFIX) {
        const index = await reading.index(session);
        const { records } = await index.readAll(index.artifactLines);
        return json({ sessionId: session.sessionId, artifacts: artifactsOf(records) } satisfies ConsoleArtifactsResponse);
      }
      if (`/${parts[2]}` === CONSOLE_PEER_HANDLES_SUFFIX) {
        const index = await reading.index(session);
        const { records } = await index.readAll(index.handleLines);
        const handles = peerHandlesOf(records, { nowMs: Date.now(), sessionEnded: session.state !== 'live' });
        return json({ sessionId: session.sessionId, handles } satisfies ConsolePeerHandlesResponse);
      }
      return notFound;
    }
    if (`/${parts.join('/')}` === CONSOLE_ROLLUP_SUFFIX) {
      const asked = [...new Set((query.get('sessions') ?? '').split(',').filter((id) => id !== ''))];
      const found: ConsoleRecordSession[] = [];
      for (const id of asked.slice(0, ROLLUP_SESSIONS_MAX)) {
        const session = await reading.session(id);
        if (session) found.push(session);
      }
      const missing = asked.filter((id) => !found.some((s) => s.sessionId === id));
      return json(await sessionsRollup(reading, found, missing, query));
    }
    if (parts.length === 1 && parts[0] === 'tasks') {
      const ids = [...new Set((query.get('ids') ?? '').split(',').filter((id) => isId('task', id)))].slice(0, RECORD_IDS_MAX);
      const tasks: ConsoleTaskSummariesResponse['tasks'] = [];
      for (const session of ids.length > 0 ? await reading.sessions() : []) {
        const index = await reading.index(session);
        const wanted = new Set(ids.filter((id) => index.tasks.has(id)));
        if (wanted.size === 0) continue;
        for (const row of await readStoredTasks(session.recordsDir)) {
          if (wanted.has(row.id)) tasks.push(await reading.summary(session, { row, task: index.tasks.get(row.id) }));
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
          lines: async function* () {
            yield JSON.stringify({ kind: 'task', ...record.summary });
            for await (const entry of entriesInFull(record)) yield JSON.stringify(entry);
          },
        };
      }
      const { page, nextCursor } = await pageOf(record.ordered.length, p, entriesInFull(record, p.offset, p.offset + p.limit));
      const body: ConsoleTaskRecordPage = {
        task: record.summary,
        entries: page,
        total: record.ordered.length,
        nextCursor,
        members: await reading.memberRecords(page),
      };
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
  for (const task of await reading.filtered(session, { q: '', state: null, contextId: null, sinceMs: null })) {
    const record = await reading.record(session, task);
    yield JSON.stringify({ kind: 'task', ...record.summary });
    for await (const entry of entriesInFull(record)) yield JSON.stringify({ taskId: record.summary.taskId, ...entry });
  }
}
