import type { FastifyInstance } from 'fastify';
import { AGENT_CARD_PATH, CONSOLE_SESSIONS_PATH, type ConsoleSession, type ConsoleSessionsResponse } from '@murmur/protocol';
import { listSessions, type SessionEntry } from '../session/session-registry.js';
import { countStoredTasks } from '../record-reads/store-reader.js';

const PROBE_TIMEOUT_MS = 1500;

/** Asks a session's door for its card: reachable when it answers a card naming a JSONRPC interface (seed 000). */
async function probeSession(entry: SessionEntry & { stale: boolean }): Promise<ConsoleSession> {
  if (entry.stale) return { ...entry, reachable: false, reason: `process ${entry.pid} is gone` };
  try {
    const answer = await fetch(`${entry.url}${AGENT_CARD_PATH}`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!answer.ok) return { ...entry, reachable: false, reason: `the card answered HTTP ${answer.status}` };
    const card = (await answer.json()) as { supportedInterfaces?: unknown[] };
    if (!Array.isArray(card.supportedInterfaces) || card.supportedInterfaces.length === 0) {
      return { ...entry, reachable: false, reason: 'its card names no supportedInterfaces: a runtime at v0.4.0 or earlier' };
    }
    return { ...entry, reachable: true };
  } catch (error) {
    return { ...entry, reachable: false, reason: `no answer: ${(error as Error).message}` };
  }
}

/** A probed session with how many of its tasks wait for the operator (read from its store; absent when unreadable). */
async function describeSession(entry: SessionEntry & { stale: boolean }): Promise<ConsoleSession> {
  const [session, needsInput] = await Promise.all([probeSession(entry), countStoredTasks(entry.recordsDir, 'TASK_STATE_INPUT_REQUIRED')]);
  return needsInput === null ? session : { ...session, needsInput };
}

/** GET /api/sessions: the sessions registered on this host, each probed, with their input-required counts. */
export function registerSessionsApi(fastify: FastifyInstance, home: string): void {
  fastify.get(CONSOLE_SESSIONS_PATH, async (_request, reply) => {
    const body: ConsoleSessionsResponse = { sessions: await Promise.all(listSessions(home).map(describeSession)) };
    return reply.header('cache-control', 'no-store').send(body);
  });
}
