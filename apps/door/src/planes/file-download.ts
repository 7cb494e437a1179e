import type { OutgoingHttpHeaders } from 'node:http';
import { encodeRefusalBody, rangeNotSatisfiableRefusal, refusalStatus } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenedBeneath } from '../paths/beneath.js';
import { sendFileBytes } from './file-bytes.js';
import { contentDispositionFor, contentTypeFor } from './content-type.js';
import { etagOf, lastModifiedOf, notModified, requestedRange } from './http-conditions.js';

/**
 * Answers a GET or HEAD of an opened regular file (docs/planes.md, "Downloads"): 200, 206, 304 or 416, with the
 * validators, content type and disposition. The bytes are sent from the descriptor through one reused buffer
 * (file-bytes.ts), never held whole; the descriptor is closed when they are sent or the client goes away, or at once
 * when no body is sent.
 */
export async function sendFile(request: FastifyRequest, reply: FastifyReply, file: OpenedBeneath, name: string): Promise<FastifyReply> {
  const { stats, handle } = file;
  const headers = request.headers as Record<string, string | undefined>;
  const validators = { etag: etagOf(stats), 'last-modified': lastModifiedOf(stats) };
  if (notModified(headers, stats)) {
    await handle.close();
    return sendHeadersOnly(reply.headers({ ...validators, 'cache-control': 'no-cache' }), 304);
  }
  const range = requestedRange(headers, stats);
  if (range === 'unsatisfiable') {
    await handle.close();
    return reply
      .code(refusalStatus('range_not_satisfiable'))
      .headers({ 'content-type': 'application/json', 'content-range': `bytes */${stats.size}` })
      .send(Buffer.from(encodeRefusalBody(rangeNotSatisfiableRefusal(stats.size))));
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? stats.size - 1;
  const length = stats.size === 0 ? 0 : end - start + 1;
  reply.headers({
    ...validators,
    'accept-ranges': 'bytes',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'content-type': contentTypeFor(name),
    'content-disposition': contentDispositionFor(name),
    'content-length': String(length),
  });
  if (range !== null) reply.header('content-range', `bytes ${start}-${end}/${stats.size}`);
  const status = range !== null ? 206 : 200;
  if (request.method === 'HEAD' || length === 0) {
    await handle.close();
    return sendHeadersOnly(reply, status);
  }
  // The bytes go straight from the file to the raw response, nothing of Fastify's reply path between them;
  // sendFileBytes owns the descriptor from here and never sends other than `length` bytes silently.
  reply.hijack();
  reply.raw.writeHead(status, reply.getHeaders() as OutgoingHttpHeaders);
  sendFileBytes(handle, reply.raw, start, length);
  return reply;
}

/**
 * Ends an answer that has no body with the headers set on `reply`, as they are. Fastify would set content-length: 0
 * on a bodiless answer to HEAD (its HEAD route's onSend), where HEAD must announce the GET's length (RFC 9110 §9.3.2),
 * and a 304 carries none.
 */
function sendHeadersOnly(reply: FastifyReply, status: number): FastifyReply {
  reply.hijack();
  reply.raw.writeHead(status, reply.getHeaders() as OutgoingHttpHeaders);
  reply.raw.end();
  return reply;
}
