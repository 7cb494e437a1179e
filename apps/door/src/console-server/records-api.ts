import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CONSOLE_RECORD_SESSION_PREFIX,
  CONSOLE_RECORD_SESSIONS_PATH,
  CONSOLE_RECORD_TASK_PREFIX,
  CONSOLE_PEER_HANDLES_SUFFIX,
  CONSOLE_RECORD_TASKS_PATH,
  CONSOLE_RECORD_ROLLUP_PATH,
  CONSOLE_ROLLUP_SUFFIX,
  type ConsoleRollup,
  type ConsolePeerHandlesResponse,
  type ConsoleRecordSession,
  type ConsoleRecordSessionsResponse,
  type ConsoleTaskRecordPage,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  consoleNotFoundRefusal,
  encodeRefusalBody,
  isId,
  isLoopbackHost,
  memberTaskIds,
  notLoopbackRefusal,
  RECORD_IDS_MAX,
  RECORD_MEMBER_DEPTH,
  RECORD_MEMBER_ENTRIES_MAX,
  RECORD_MEMBERS_MAX,
  RECORD_PAGE_DEFAULT,
  RECORD_PAGE_MAX,
  refusalStatus,
  ROLLUP_SESSIONS_MAX,
  type TaskRecordEntry,
  type TaskRecordMember,
  type TaskRecordMemberCall,
} from '@murmur/protocol';
import { memberCallsOf } from './member-call-records.js';
import { peerHandlesOf } from './peer-handle-records.js';
import { recordSessions } from './record-sessions.js';
import { readStoredTasks } from './store-reader.js';
import { matches, recordEntries, recordSummary } from './task-records.js';
import { type RollupTask, rollupTasks } from './task-rollup.js';
import type { TraceLine } from '../records/trace-schema.js';
import { type ParsedTrace, readTrace } from './trace-reader.js';

type Query = { q?: string; state?: string; contextId?: string; since?: string; limit?: string; cursor?: string };

/** The summaries of a session's tasks, newest change first, kept by `q` and the exact `state`, `contextId` and `since`. */
async function sessionSummaries(session: ConsoleRecordSession, query: Query) {
  const trace = traceOf(session);
  const q = (query.q ?? '').trim();
  const sinceMs = query.since ? Date.parse(query.since) : Number.NaN;
  return (await readStoredTasks(session.recordsDir))
    .filter((row) => (!query.state || row.state === query.state) && (!query.contextId || row.contextId === query.contextId))
    .filter((row) => Number.isNaN(sinceMs) || row.statusTimestampMs > sinceMs)
    .map((row) => ({ summary: recordSummary(session.sessionId, row, trace.tasks.get(row.id) ?? []), row, records: trace.tasks.get(row.id) ?? [] }))
    .filter(({ summary, records }) => q === '' || matches(summary, records, q));
}

/** The rollup of `sessions`' tasks kept by the tasks table's filters (docs/console.md, "Rollups"). */
async function sessionsRollup(sessions: readonly ConsoleRecordSession[], missing: string[], query: Query): Promise<ConsoleRollup> {
  const readAtMs = Date.now();
  const tasks: RollupTask[] = [];
  for (const session of sessions) {
    for (const { summary, row, records } of await sessionSummaries(session, query)) tasks.push({ summary, entries: () => recordEntries(row, records) });
  }
  const filters = { q: (query.q ?? '').trim(), state: query.state ?? '', contextId: query.contextId ?? '', since: query.since ?? '' };
  return rollupTasks(tasks, { sessionIds: sessions.map((s) => s.sessionId), missing, filters, readAtMs });
}

function page(query: Query): { offset: number; limit: number } {
  const limit = Math.min(RECORD_PAGE_MAX, Math.max(1, Number.parseInt(query.limit ?? '', 10) || RECORD_PAGE_DEFAULT));
  const offset = Math.max(0, Number.parseInt(query.cursor ?? '', 10) || 0);
  return { offset, limit };
}

const next = (offset: number, limit: number, total: number) => (offset + limit < total ? String(offset + limit) : null);

function notFound(reply: FastifyReply, url: string) {
  return reply.code(refusalStatus('not_found')).header('content-type', 'application/json').send(encodeRefusalBody(consoleNotFoundRefusal(url)));
}

const traceOf = (session: ConsoleRecordSession): ParsedTrace => readTrace(path.join(session.recordsDir, 'trace.jsonl'));

/** The session holding a task: task ids are unique across sessions (UUIDv7), so the first trace naming it. */
function sessionOfTask(taskId: string, sessions: readonly ConsoleRecordSession[]): ConsoleRecordSession | null {
  return sessions.find((s) => traceOf(s).tasks.has(taskId)) ?? null;
}

/** The member calls a task's call-member tool calls made, by tool call id, each with the member task's session. */
function memberCallsOfTask(taskId: string, records: readonly TraceLine[], sessions: readonly ConsoleRecordSession[]): Map<string, TaskRecordMemberCall> {
  const byToolCall = new Map<string, TaskRecordMemberCall>();
  for (const call of memberCallsOf(taskId, records)) {
    if (call.toolCallId === null) continue;
    const memberSession = call.memberTaskId === null ? null : sessionOfTask(call.memberTaskId, sessions);
    byToolCall.set(call.toolCallId, {
      callId: call.callId,
      member: call.member,
      memberTaskId: call.memberTaskId,
      memberSessionId: memberSession?.sessionId ?? null,
      memberUrl: memberSession?.url ?? null,
      status: call.status,
      elapsedMs: call.elapsedMs,
      offers: call.offers,
    });
  }
  return byToolCall;
}

const callsMember = (records: readonly TraceLine[]) => records.some((r) => r.type === 'tool_call' && r.tool === 'call-member');

async function taskRecord(taskId: string, home: string) {
  const sessions = recordSessions(home);
  const session = sessionOfTask(taskId, sessions);
  if (!session) return null;
  const [row] = await readStoredTasks(session.recordsDir, taskId);
  if (!row) return null;
  const records = traceOf(session).tasks.get(taskId) ?? [];
  const memberCalls = callsMember(records) ? memberCallsOfTask(taskId, records, sessions) : undefined;
  return { summary: recordSummary(session.sessionId, row, records), entries: recordEntries(row, records, memberCalls) };
}

/** The records of the member tasks `entries` started, and theirs in turn, as `ConsoleTaskRecordPage.members` holds them. */
async function memberRecords(entries: readonly TaskRecordEntry[], home: string): Promise<TaskRecordMember[]> {
  const members: TaskRecordMember[] = [];
  const read = new Set<string>();
  let wanted = memberTaskIds(entries);
  for (let depth = 1; depth <= RECORD_MEMBER_DEPTH && wanted.length > 0; depth++) {
    const next: string[] = [];
    for (const id of wanted) {
      if (read.has(id) || members.length >= RECORD_MEMBERS_MAX) continue;
      read.add(id);
      const record = await taskRecord(id, home);
      if (!record) continue;
      members.push({ task: record.summary, entries: record.entries.slice(0, RECORD_MEMBER_ENTRIES_MAX) });
      next.push(...memberTaskIds(record.entries));
    }
    wanted = next;
  }
  return members;
}

/**
 * The read-only record API (docs/console.md): sessions on this host (under `home`, MURMUR_HOME), a session's task summaries (searchable), one
 * task's record paged or as NDJSON. Local files are read, so only a loopback peer is answered, whatever the bind.
 */
export function registerRecordsApi(fastify: FastifyInstance, home: string): void {
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith('/api/records/')) return;
    const peer = request.socket.remoteAddress ?? '';
    if (!isLoopbackHost(peer)) return reply.code(refusalStatus('not_loopback')).header('content-type', 'application/json').send(encodeRefusalBody(notLoopbackRefusal(peer)));
  });

  fastify.get(CONSOLE_RECORD_SESSIONS_PATH, async (_request, reply) => {
    const body: ConsoleRecordSessionsResponse = { sessions: recordSessions(home) };
    return reply.header('cache-control', 'no-store').send(body);
  });

  fastify.get<{ Params: { sessionId: string }; Querystring: Query }>(`${CONSOLE_RECORD_SESSION_PREFIX}:sessionId/tasks`, async (request, reply) => {
    const { sessionId } = request.params;
    const session = isId('session', sessionId) ? recordSessions(home).find((s) => s.sessionId === sessionId) : undefined;
    if (!session) return notFound(reply, request.url);
    const summaries = (await sessionSummaries(session, request.query)).map(({ summary }) => summary);
    const { offset, limit } = page(request.query);
    const body: ConsoleTaskSummariesPage = { session, tasks: summaries.slice(offset, offset + limit), total: summaries.length, nextCursor: next(offset, limit, summaries.length) };
    return reply.header('cache-control', 'no-store').send(body);
  });

  fastify.get<{ Params: { sessionId: string }; Querystring: Query }>(`${CONSOLE_RECORD_SESSION_PREFIX}:sessionId${CONSOLE_ROLLUP_SUFFIX}`, async (request, reply) => {
    const { sessionId } = request.params;
    const session = isId('session', sessionId) ? recordSessions(home).find((s) => s.sessionId === sessionId) : undefined;
    if (!session) return notFound(reply, request.url);
    return reply.header('cache-control', 'no-store').send(await sessionsRollup([session], [], request.query));
  });

  fastify.get<{ Querystring: Query & { sessions?: string } }>(CONSOLE_RECORD_ROLLUP_PATH, async (request, reply) => {
    const asked = [...new Set((request.query.sessions ?? '').split(',').filter((id) => id !== ''))];
    const known = recordSessions(home);
    const found = asked.slice(0, ROLLUP_SESSIONS_MAX).flatMap((id) => (isId('session', id) ? known.filter((s) => s.sessionId === id) : []));
    const missing = asked.filter((id) => !found.some((s) => s.sessionId === id));
    return reply.header('cache-control', 'no-store').send(await sessionsRollup(found, missing, request.query));
  });

  // A whole session's record: the session, then each task (newest change first) followed by its entries, every entry
  // line carrying its taskId so the file reads without its neighbours.
  fastify.get<{ Params: { sessionId: string } }>(`${CONSOLE_RECORD_SESSION_PREFIX}:sessionId/export`, async (request, reply) => {
    const { sessionId } = request.params;
    const session = isId('session', sessionId) ? recordSessions(home).find((s) => s.sessionId === sessionId) : undefined;
    if (!session) return notFound(reply, request.url);
    const lines = [JSON.stringify({ kind: 'session', ...session })];
    const sessions = recordSessions(home);
    for (const { summary, row, records } of await sessionSummaries(session, {})) {
      lines.push(JSON.stringify({ kind: 'task', ...summary }));
      const memberCalls = callsMember(records) ? memberCallsOfTask(summary.taskId, records, sessions) : undefined;
      for (const entry of recordEntries(row, records, memberCalls)) lines.push(JSON.stringify({ taskId: summary.taskId, ...entry }));
    }
    return reply
      .header('cache-control', 'no-store')
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${sessionId}.ndjson"`)
      .send(`${lines.join('\n')}\n`);
  });

  // The peer handles the session minted, from its trace (docs/planes.md, "In the console"): never a secret.
  fastify.get<{ Params: { sessionId: string } }>(`${CONSOLE_RECORD_SESSION_PREFIX}:sessionId${CONSOLE_PEER_HANDLES_SUFFIX}`, async (request, reply) => {
    const { sessionId } = request.params;
    const session = isId('session', sessionId) ? recordSessions(home).find((s) => s.sessionId === sessionId) : undefined;
    if (!session) return notFound(reply, request.url);
    const handles = peerHandlesOf(traceOf(session).handles, { nowMs: Date.now(), sessionEnded: session.state !== 'live' });
    return reply.header('cache-control', 'no-store').send({ sessionId, handles } satisfies ConsolePeerHandlesResponse);
  });

  fastify.get<{ Querystring: { ids?: string } }>(CONSOLE_RECORD_TASKS_PATH, async (request, reply) => {
    const ids = [...new Set((request.query.ids ?? '').split(',').filter((id) => isId('task', id)))].slice(0, RECORD_IDS_MAX);
    const tasks: ConsoleTaskSummariesResponse['tasks'] = [];
    const sessions = ids.length > 0 ? recordSessions(home) : [];
    for (const session of sessions) {
      const trace = traceOf(session);
      const wanted = new Set(ids.filter((id) => trace.tasks.has(id)));
      if (wanted.size === 0) continue;
      for (const row of await readStoredTasks(session.recordsDir)) {
        if (wanted.has(row.id)) tasks.push(recordSummary(session.sessionId, row, trace.tasks.get(row.id) ?? []));
      }
    }
    return reply.header('cache-control', 'no-store').send({ tasks } satisfies ConsoleTaskSummariesResponse);
  });

  fastify.get<{ Params: { taskId: string }; Querystring: Query }>(`${CONSOLE_RECORD_TASK_PREFIX}:taskId`, async (request, reply) => {
    const { taskId } = request.params;
    const record = isId('task', taskId) ? await taskRecord(taskId, home) : null;
    if (!record) return notFound(reply, request.url);
    const { offset, limit } = page(request.query);
    const entries = record.entries.slice(offset, offset + limit);
    const body: ConsoleTaskRecordPage = {
      task: record.summary,
      entries,
      total: record.entries.length,
      nextCursor: next(offset, limit, record.entries.length),
      members: await memberRecords(entries, home),
    };
    return reply.header('cache-control', 'no-store').send(body);
  });

  fastify.get<{ Params: { taskId: string } }>(`${CONSOLE_RECORD_TASK_PREFIX}:taskId/export`, async (request, reply) => {
    const { taskId } = request.params;
    const record = isId('task', taskId) ? await taskRecord(taskId, home) : null;
    if (!record) return notFound(reply, request.url);
    const lines = [JSON.stringify({ kind: 'task', ...record.summary }), ...record.entries.map((e) => JSON.stringify(e))];
    return reply
      .header('cache-control', 'no-store')
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${taskId}.ndjson"`)
      .send(`${lines.join('\n')}\n`);
  });
}
