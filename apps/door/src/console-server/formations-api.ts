import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CONSOLE_FORMATIONS_PATH,
  type ConsoleFormation,
  type ConsoleFormationDelegation,
  type ConsoleFormationMember,
  type ConsoleFormationsResponse,
  type ConsoleMemberCall,
  encodeRefusalBody,
  isLoopbackHost,
  notLoopbackPeerRefusal,
  refusalStatus,
} from '@murmur/protocol';
import { type FormationEntry, listFormations, listSessions } from '../session/session-registry.js';
import type { AddedDoor } from './added-doors.js';
import { consoleDelegation, delegationsOf } from '../record-reads/delegation-records.js';
import { MemberDoorRecords } from './member-door-records.js';
import { consoleMemberCall, memberCallsOf } from '../record-reads/member-call-records.js';
import { recordSessions } from './record-sessions.js';
import { countTasksByState, storedStates } from '../record-reads/store-reader.js';
import { traceIndex } from '../record-reads/trace-index.js';

/** One registered formation: its members' sessions and stores, and the calls their traces record. */
async function describeFormation(
  entry: FormationEntry & { stale: boolean },
  registered: ReturnType<typeof listSessions>,
  recordsDirOf: (sessionId: string) => Promise<string | null>,
  doors: MemberDoorRecords,
): Promise<ConsoleFormation> {
  const members: ConsoleFormationMember[] = [];
  const calls: ConsoleMemberCall[] = [];
  const delegations: ConsoleFormationDelegation[] = [];
  const sessionOfMember = new Map(entry.members.map((m) => [m.member, m.sessionId]));
  for (const m of entry.members) {
    const reg = registered.find((s) => s.sessionId === m.sessionId);
    const recordsDir = reg?.recordsDir ?? (await recordsDirOf(m.sessionId));
    members.push({
      member: m.member,
      sessionId: m.sessionId,
      url: m.url,
      pid: m.pid,
      entry: m.member === entry.entry,
      session: reg ? (reg.stale ? 'stale' : 'live') : 'ended',
      tasks: recordsDir ? await countTasksByState(recordsDir) : {},
      records: recordsDir ? 'host' : null,
    });
    if (!recordsDir) {
      // Its records are not on this host: its calls come from its door (docs/console.md, "Formations across hosts").
      const fromDoor = await doors.calls(m.url, m.member, sessionOfMember);
      if (fromDoor !== null) {
        calls.push(...fromDoor.calls);
        delegations.push(...fromDoor.delegations);
        const member = members[members.length - 1];
        member.records = 'door';
        member.tasks = await doors.taskCounts(m.url, m.sessionId);
      }
      continue;
    }
    const index = await traceIndex(path.join(recordsDir, 'trace.jsonl'));
    for (const [taskId, task] of index.tasks) {
      if (!task.callsMember && !task.delegates) continue;
      // Read light: a tool call's output bears on neither (docs/console.md, "Read through an index, never whole").
      const { records } = await index.light(task);
      for (const call of memberCallsOf(taskId, records)) {
        calls.push(
          consoleMemberCall(call, {
            caller: m.member,
            callerSessionId: m.sessionId,
            callerTaskId: taskId,
            calleeSessionId: sessionOfMember.get(call.member) ?? null,
          }),
        );
      }
      for (const d of delegationsOf(taskId, records)) delegations.push(consoleDelegation(d, { member: m.member, sessionId: m.sessionId }));
    }
  }
  // Each member task's state, from its member's store (one query per callee).
  const dirOfSession = new Map<string, string | null>();
  for (const m of members) dirOfSession.set(m.sessionId, registered.find((s) => s.sessionId === m.sessionId)?.recordsDir ?? (await recordsDirOf(m.sessionId)));
  for (const callee of members) {
    const dir = dirOfSession.get(callee.sessionId);
    const mine = calls.filter((c) => c.calleeSessionId === callee.sessionId && c.memberTaskId !== null);
    if (mine.length === 0) continue;
    const ids = [...new Set(mine.map((c) => c.memberTaskId as string))];
    const states = dir ? await storedStates(dir, ids) : await doors.states(callee.url, ids);
    for (const call of mine) call.memberTaskState = states.get(call.memberTaskId as string) ?? null;
  }
  calls.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.callId.localeCompare(b.callId));
  delegations.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.delegationId.localeCompare(b.delegationId));
  return {
    key: `${entry.name}-${entry.pid}`,
    name: entry.name,
    pid: entry.pid,
    state: entry.stale ? 'stale' : 'live',
    source: 'host',
    entry: entry.entry,
    rosterFile: entry.rosterFile,
    startedAt: entry.startedAt,
    members,
    calls,
    delegations,
  };
}

/**
 * The formations the added doors are members of that are not registered on this host (docs/console.md, "Formations
 * discovered from added doors"), each once, keyed `<name>-<supervisor pid>@<host>`.
 */
async function discoveredFormations(added: readonly AddedDoor[], registered: readonly FormationEntry[], doors: MemberDoorRecords) {
  const registeredSessions = new Set(registered.flatMap((f) => f.members.map((m) => m.sessionId)));
  const answers = await Promise.all(added.map(async (door) => ({ door, formation: await doors.formation(door.url) })));
  const found = new Map<string, { key: string; entry: FormationEntry & { stale: boolean } }>();
  for (const { door, formation } of answers) {
    if (formation === null || formation.members.some((m) => registeredSessions.has(m.sessionId))) continue;
    const key = `${formation.key}@${door.hostname}`;
    if (found.has(key)) continue;
    const { name, pid, rosterFile, entry, startedAt } = formation;
    const members = formation.members.map(({ member, sessionId, url, pid: memberPid }) => ({ member, sessionId, url, pid: memberPid }));
    found.set(key, { key, entry: { name, pid, rosterFile, entry, startedAt, members, stale: false } });
  }
  return [...found.values()];
}

/**
 * GET /api/formations (docs/console.md, "Formations"): the formations registered on this host, read from the
 * registry, each member's store and trace; a member whose records are not on this host is read from its door's record
 * plane (with an added door's token). Local files, so a loopback peer only; any peer gets the formations of the
 * added doors (docs/console.md, "Formations discovered from added doors"), read from the doors as the proxy reads them.
 */
export function registerFormationsApi(fastify: FastifyInstance, home: string, added: readonly AddedDoor[] = []): void {
  const doors = new MemberDoorRecords(added);
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (
      request.url !== CONSOLE_FORMATIONS_PATH &&
      !request.url.startsWith(`${CONSOLE_FORMATIONS_PATH}?`) &&
      !request.url.startsWith(`${CONSOLE_FORMATIONS_PATH}/`)
    )
      return;
    const peer = request.socket.remoteAddress ?? '';
    const list = request.method === 'GET' && request.url.split('?')[0] === CONSOLE_FORMATIONS_PATH;
    if (!isLoopbackHost(peer) && !list)
      return reply
        .code(refusalStatus('not_loopback'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(notLoopbackPeerRefusal(peer)));
  });

  fastify.get(CONSOLE_FORMATIONS_PATH, async (request, reply) => {
    // This host's files for a loopback peer only; the added doors' formations for any peer.
    const local = isLoopbackHost(request.socket.remoteAddress ?? '');
    const registered = local ? listSessions(home) : [];
    // An unregistered (ended) member's records folder is found by walking the records, once per request.
    let walked: Promise<Map<string, string>> | null = null;
    const recordsDirOf = async (sessionId: string) => {
      walked ??= recordSessions(home).then((sessions) => new Map(sessions.map((s) => [s.sessionId, s.recordsDir])));
      return (await walked).get(sessionId) ?? null;
    };
    const entries = local ? listFormations(home) : [];
    const formations = await Promise.all(entries.map((f) => describeFormation(f, registered, recordsDirOf, doors)));
    for (const found of await discoveredFormations(added, entries, doors)) {
      // Read from the doors alone: no member's records are looked for on this host.
      const formation = await describeFormation(found.entry, [], async () => null, doors);
      for (const member of formation.members) if (member.records === 'door') member.session = 'live';
      formations.push({ ...formation, key: found.key, source: 'doors' });
    }
    formations.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    return reply.header('cache-control', 'no-store').send({ formations } satisfies ConsoleFormationsResponse);
  });
}
