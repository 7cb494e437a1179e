import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeRefusalBody, refusalStatus } from '@murmur/protocol';
import type { RecordAnswer } from './record-answers.js';

/**
 * The record path after `base` in a request target, each segment percent-decoded once, and its query; null when the
 * target is not under `base` or a segment does not decode (answered 404 like any path the record does not hold).
 */
export function recordTarget(target: string, base: string): { rest: string; query: URLSearchParams; shown: string } | null {
  const [pathname, search = ''] = target.split('?', 2) as [string, string?];
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return null;
  const raw = pathname.slice(base.length);
  try {
    const rest = raw
      .split('/')
      .map((segment) => decodeURIComponent(segment))
      .join('/');
    return { rest, query: new URLSearchParams(search), shown: pathname };
  } catch {
    return null;
  }
}

/**
 * Sends a record answer: JSON with `cache-control: no-store`, a refusal as its HTTP status and body, NDJSON written
 * one line at a time, the next only once the socket took the last (so an export holds one line, not the file).
 */
export async function sendRecordAnswer(request: FastifyRequest, reply: FastifyReply, answer: RecordAnswer): Promise<FastifyReply> {
  if (answer.kind === 'refusal') {
    return reply
      .code(refusalStatus(answer.body.error))
      .headers({ 'content-type': 'application/json', 'cache-control': 'no-store' })
      .send(encodeRefusalBody(answer.body));
  }
  if (answer.kind === 'json')
    return reply.code(200).headers({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).send(JSON.stringify(answer.body));
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
    'content-disposition': `attachment; filename="${answer.filename}"`,
  });
  if (request.method === 'HEAD') {
    res.end();
    return reply;
  }
  for await (const line of answer.lines()) {
    if (res.destroyed) return reply;
    if (!res.write(`${line}\n`)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
  res.end();
  return reply;
}
