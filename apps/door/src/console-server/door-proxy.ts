import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  badAddressRefusal,
  CONSOLE_DOOR_PROXY_PREFIX,
  CONTROL_PATH,
  doorUnreachableRefusal,
  encodeRefusalBody,
  type HttpRefusalBody,
  isLoopbackHost,
  notLoopbackRefusal,
  parseHostPort,
  refusalStatus,
  unbracketHost,
} from '@murmur/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AddedDoor } from './added-doors.js';

export const DOOR_PROXY_PREFIX = CONSOLE_DOOR_PROXY_PREFIX;

/** Request headers a door reads; nothing else (cookies, the console's own headers) is passed on. */
const FORWARDED = ['authorization', 'a2a-version', 'a2a-extensions', 'last-event-id', 'content-type', 'accept', 'range', 'if-none-match', 'if-modified-since'];

function refuse(reply: FastifyReply, body: HttpRefusalBody): FastifyReply {
  return reply.code(refusalStatus(body.error)).header('content-type', 'application/json').send(encodeRefusalBody(body));
}

/**
 * A same-origin, unbuffered proxy from /api/door/<host:port>/<path> to http://<host:port>/<path>, for doors on
 * loopback only, so the console reaches local doors without CORS and without becoming an open proxy. Streams pass
 * through as they are written (no buffering, no compression), and a client that disconnects closes the upstream.
 * Doors added with `mur console --door` are reached too, by their exact host:port, over their own scheme, with their
 * token file's bearer token when the browser sends no Authorization of its own — except to the control surface.
 */
export function registerDoorProxy(fastify: FastifyInstance, added: readonly AddedDoor[] = []): void {
  const byKey = new Map(added.map((door) => [door.key, door]));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const rest = request.url.slice(DOOR_PROXY_PREFIX.length);
    const slash = rest.indexOf('/');
    const target = parseHostPort(decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash)));
    const path = slash < 0 ? '/' : rest.slice(slash);
    if (!target) return refuse(reply, badAddressRefusal());
    const door = byKey.get(`${target.host}:${target.port}`) ?? null;
    if (door === null && !isLoopbackHost(target.host)) return refuse(reply, notLoopbackRefusal(target.host));
    const headers: Record<string, string | string[]> = {};
    for (const name of FORWARDED) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    // The control surface takes its own token, never the door's (docs/control.md): only the browser's goes there.
    const pathname = path.split('?')[0];
    const toControl = pathname === CONTROL_PATH || pathname.startsWith(`${CONTROL_PATH}/`);
    if (door?.token && headers.authorization === undefined && !toControl) headers.authorization = `Bearer ${door.token}`;
    const request_ = door?.protocol === 'https:' ? httpsRequest : httpRequest;
    reply.hijack();
    const res: ServerResponse = reply.raw;
    const upstream = request_(
      { host: door?.hostname ?? unbracketHost(target.host), port: target.port, method: request.method, path, headers },
      (answer: IncomingMessage) => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && name !== 'connection' && name !== 'transfer-encoding' && name !== 'keep-alive') out[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, out);
        res.flushHeaders();
        // With backpressure: a download from the files plane is as large as the file, and a slow browser must not
        // make this process hold it (docs/planes.md, "In the console").
        answer.on('data', (chunk: Buffer) => {
          if (!res.write(chunk)) {
            answer.pause();
            res.once('drain', () => answer.resume());
          }
        });
        answer.on('end', () => res.end());
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else {
        const body = doorUnreachableRefusal(`${target.host}:${target.port}`, error.message);
        res.writeHead(refusalStatus(body.error), { 'content-type': 'application/json' });
        res.end(encodeRefusalBody(body));
      }
    });
    res.on('close', () => upstream.destroy());
    const body = request.body as Buffer | undefined;
    upstream.end(body && body.length > 0 ? body : undefined);
  };
  fastify.all(`${DOOR_PROXY_PREFIX}*`, handler);
}
