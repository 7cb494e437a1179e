/**
 * Running now's HTTP API (docs/console.md, "Running now"): the snapshot once, the snapshot as one SSE stream, and Ask
 * again. The watch reads added doors with their token files, so only a loopback peer is answered.
 */
import type { ServerResponse } from 'node:http';
import {
  CONSOLE_RUNNING_DOORS_PREFIX,
  CONSOLE_RUNNING_PATH,
  CONSOLE_RUNNING_STREAM_PATH,
  type ConsoleRunningSnapshot,
  DEFAULT_HEARTBEAT_MS,
  encodeRefusalBody,
  encodeSseEvent,
  HEARTBEAT_COMMENT,
  isLoopbackHost,
  notLoopbackRefusal,
  refusalStatus,
  runningDoorNotFoundRefusal,
} from '@murmur/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RunningNow } from './running-now.js';

export function registerRunningApi(fastify: FastifyInstance, running: RunningNow): void {
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0];
    if (pathname !== CONSOLE_RUNNING_PATH && !pathname.startsWith(`${CONSOLE_RUNNING_PATH}/`)) return;
    const peer = request.socket.remoteAddress ?? '';
    if (!isLoopbackHost(peer))
      return reply
        .code(refusalStatus('not_loopback'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(notLoopbackRefusal(peer)));
  });

  fastify.get(CONSOLE_RUNNING_PATH, async (_request, reply) => reply.header('cache-control', 'no-store').send(running.snapshot()));

  fastify.get(CONSOLE_RUNNING_STREAM_PATH, (_request, reply) => {
    reply.hijack();
    const res: ServerResponse = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    // A reader that does not keep up gets the newest snapshot once it drained, not a queue of old ones.
    let pending: ConsoleRunningSnapshot | null = null;
    const send = (snapshot: ConsoleRunningSnapshot) => {
      if (res.writableNeedDrain) {
        if (pending === null) res.once('drain', () => pending !== null && send(pending));
        pending = snapshot;
        return;
      }
      pending = null;
      res.write(encodeSseEvent(null, JSON.stringify(snapshot)));
    };
    const unsubscribe = running.subscribe(send);
    const heartbeat = setInterval(() => res.write(HEARTBEAT_COMMENT), DEFAULT_HEARTBEAT_MS);
    heartbeat.unref();
    res.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
  });

  fastify.post(`${CONSOLE_RUNNING_DOORS_PREFIX}:key/retry`, async (request, reply) => {
    const { key } = request.params as { key: string };
    if (!running.askAgain(key)) {
      return reply
        .code(refusalStatus('not_found'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(runningDoorNotFoundRefusal(key)));
    }
    return reply.code(204).send();
  });
}
