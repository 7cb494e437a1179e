import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_RECORDS_BASE, encodeRefusalBody, isLoopbackHost, notLoopbackPeerRefusal, recordNotFoundRefusal, refusalStatus } from '@murmur/protocol';
import { answerRecordRequest, type RecordSource } from '../record-reads/record-answers.js';
import { recordTarget, sendRecordAnswer } from '../record-reads/record-reply.js';
import { recordSessions } from './record-sessions.js';

/**
 * The read-only record API (docs/console.md): sessions on this host (under `home`, MURMUR_HOME), a session's task
 * summaries (searchable), one task's record paged or as NDJSON. Local files are read, so only a loopback peer is
 * answered, whatever the bind. Every door serves the same answers for its own session (planes/records-plane.ts).
 */
export function registerRecordsApi(fastify: FastifyInstance, home: string): void {
  const source: RecordSource = { sessions: () => recordSessions(home) };
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith(`${CONSOLE_RECORDS_BASE}/`)) return;
    const peer = request.socket.remoteAddress ?? '';
    if (!isLoopbackHost(peer))
      return reply
        .code(refusalStatus('not_loopback'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(notLoopbackPeerRefusal(peer)));
  });

  fastify.get(`${CONSOLE_RECORDS_BASE}/*`, async (request, reply) => {
    const target = recordTarget(request.url, CONSOLE_RECORDS_BASE);
    if (target === null) {
      return reply
        .code(refusalStatus('not_found'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(recordNotFoundRefusal(request.url.split('?')[0])));
    }
    return sendRecordAnswer(request, reply, await answerRecordRequest(source, target.rest, target.query, target.shown));
  });
}
