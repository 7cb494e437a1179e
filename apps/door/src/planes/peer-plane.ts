import type { OutgoingHttpHeaders } from 'node:http';
import { AUDIENCE_HEADER, encodeRefusalBody, HANDLE_ID_HEADER, handleNotFoundRefusal, refusalStatus } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuseUnlessReadOnly } from './read-only-method.js';
import { openBeneath } from '../paths/beneath.js';
import type { PeerHandle, PeerHandles, RedeemRefusal } from '../peers/peer-handles.js';
import type { TraceWriter } from '../records/trace-writer.js';
import { sendFileBytes } from './file-bytes.js';
import { contentDispositionFor, contentTypeFor } from './content-type.js';

/** Where the peer plane is reached (seed 000, "Planes"). */
const PEER_PLANE_PREFIX = '/resources/peer/';

const NOT_FOUND = Buffer.from(encodeRefusalBody(handleNotFoundRefusal()));

/**
 * The peer plane (docs/planes.md, "The peer plane"): one file per handle, for the audience it was minted for, reached
 * without a door token (seed 000, step 1). Every failure is the one byte-identical handle_not_found; the trace says
 * which it was. GET answered 200 takes one use; HEAD takes none; range and conditionals are ignored.
 */
export class PeerPlane {
  /** @param root the peer export root, absolute; its real path is taken per request. */
  constructor(
    private readonly root: string,
    private readonly handles: PeerHandles,
    private readonly trace: TraceWriter,
  ) {}

  async answer(request: FastifyRequest, reply: FastifyReply, target: string): Promise<FastifyReply> {
    const refused = refuseUnlessReadOnly(request, reply);
    if (refused) return refused;
    const pathname = target.split('?')[0];
    const secret = pathname.startsWith(PEER_PLANE_PREFIX) ? pathname.slice(PEER_PLANE_PREFIX.length) : '';
    const audienceHeader = request.headers[AUDIENCE_HEADER];
    const audience = typeof audienceHeader === 'string' ? audienceHeader : undefined;
    const verdict = this.handles.check(secret, audience);
    if (!verdict.ok) return this.refuse(reply, verdict.why, verdict.handleId, audience);
    const { handle } = verdict;
    const file = await openBeneath(this.root, handle.file.segments, 'file');
    if (file === null) return this.refuse(reply, 'file_gone', handle.id, audience);
    if (file.stats.dev !== handle.file.dev || file.stats.ino !== handle.file.ino) {
      await file.handle.close();
      return this.refuse(reply, 'file_gone', handle.id, audience);
    }
    const name = handle.file.segments[handle.file.segments.length - 1];
    const size = file.stats.size;
    const headers: OutgoingHttpHeaders = {
      'content-type': contentTypeFor(name),
      'content-disposition': contentDispositionFor(name),
      'content-length': String(size),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      [HANDLE_ID_HEADER]: handle.id,
    };
    // A GET takes its use as the headers go out: an aborted transfer has used it (docs/planes.md, "Use count").
    if (request.method === 'GET') this.redeemed(handle, audience ?? '', size);
    reply.hijack();
    reply.raw.writeHead(200, headers);
    if (request.method === 'HEAD' || size === 0) {
      await file.handle.close();
      reply.raw.end();
      return reply;
    }
    sendFileBytes(file.handle, reply.raw, 0, size);
    return reply;
  }

  private redeemed(handle: PeerHandle, audience: string, size: number): void {
    this.handles.consume(handle);
    this.trace.write('peer_handle_redeem', { handle_id: handle.id, audience, size, uses_left: handle.uses - handle.used });
  }

  private refuse(reply: FastifyReply, why: RedeemRefusal, handleId: string | null, audience: string | undefined): FastifyReply {
    // The secret is never written. Only a refusal of a known handle is traced: a probe of made-up handles grows nothing.
    if (handleId !== null) this.trace.write('peer_handle_refused', { handle_id: handleId, reason: why, audience: audience ?? null });
    return reply.code(refusalStatus('handle_not_found')).header('content-type', 'application/json').header('cache-control', 'no-store').send(NOT_FOUND);
  }
}
