import { encodeRefusalBody, methodNotAllowedRefusal, refusalStatus } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Both planes serve GET and HEAD only: any other method is answered 405 with `Allow` (docs/planes.md); null for GET/HEAD. */
export function refuseUnlessReadOnly(request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  return reply
    .code(refusalStatus('method_not_allowed'))
    .headers({ 'content-type': 'application/json', allow: 'GET, HEAD' })
    .send(Buffer.from(encodeRefusalBody(methodNotAllowedRefusal(request.method))));
}
