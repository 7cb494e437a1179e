import { encodeRefusalBody, fileNotFoundRefusal, refusalStatus } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuseUnlessReadOnly } from './read-only-method.js';
import { openBeneath } from '../paths/beneath.js';
import { sendFile } from './file-download.js';
import { listFolder } from './folder-listing.js';
import { parsePlanePath } from '../paths/plane-path.js';

/** Where the operator plane is reached (seed 000, "Planes"). */
const FILES_PLANE_PREFIX = '/resources/files';

const NOT_FOUND = Buffer.from(encodeRefusalBody(fileNotFoundRefusal()));

/**
 * The operator plane (docs/planes.md): listings and downloads of the files under the export root. It is reached
 * after the door token and the resources/files scope (seed 000, step 4); everything it refuses on a path is the one
 * byte-identical file_not_found, so a probe learns nothing about why.
 */
export class FilesPlane {
  /** @param root the export root, absolute (the capsule folder joined with exports.files.root); its real path is taken per request. */
  constructor(private readonly root: string) {}

  /** Answers one request under /resources/files. `target` is the request target as the client sent it. */
  async answer(request: FastifyRequest, reply: FastifyReply, target: string): Promise<FastifyReply> {
    const refused = refuseUnlessReadOnly(request, reply);
    if (refused) return refused;
    const pathname = target.split('?')[0];
    const parsed = pathname.startsWith(FILES_PLANE_PREFIX) ? parsePlanePath(pathname.slice(FILES_PLANE_PREFIX.length)) : null;
    if (parsed === null) return notFound(reply);
    const entry = await openBeneath(this.root, parsed.segments, parsed.folder ? 'folder' : 'file');
    if (entry === null) return notFound(reply);
    if (!parsed.folder) return sendFile(request, reply, entry, parsed.segments[parsed.segments.length - 1]);
    try {
      const listing = await listFolder(entry, parsed.segments);
      return reply
        .code(200)
        .headers({ 'content-type': 'application/json', 'cache-control': 'no-store' })
        .send(Buffer.from(JSON.stringify(listing)));
    } catch {
      return notFound(reply);
    } finally {
      await entry.handle.close();
    }
  }
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(refusalStatus('file_not_found')).header('content-type', 'application/json').send(NOT_FOUND);
}
