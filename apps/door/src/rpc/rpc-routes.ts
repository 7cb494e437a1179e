import {
  AGENT_CARD_PATH,
  CONTROL_PATH,
  doorNotFoundRefusal,
  encodeRefusalBody,
  failure,
  RECORDS_PLANE_PATH,
  RECORDS_SCOPE,
  type RequestHeaderLines,
  readRequestHeaders,
  rpcError,
} from '@murmur/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';
import type { RequestGate } from '../auth/request-gate.js';
import { ifNoneMatchHits, PUBLIC_CARD_CACHE_CONTROL } from '../card/card-cache.js';
import type { CardService } from '../card/card.service.js';
import type { Manifest } from '../manifest/manifest.schema.js';
import { type ControlServer, isControlPath } from './control-server.js';
import { readBody, TOO_LARGE } from '../common/request-body.js';
import { type DoorIntake, INTAKE_SMALL_BODY_BYTES } from './intake-budget.js';
import { type PlaneServer, type PlaneServers, planeOf, planeRefusal } from './plane-refusal.js';
import type { RpcPipeline } from './rpc-pipeline.js';

declare module 'fastify' {
  interface FastifyRequest {
    murmurCaller?: Caller;
    /** The headers the door reads, read once by the gate's hook (readRequestHeaders). */
    murmurLines?: RequestHeaderLines;
    /** The control token's id, on a POST /control admitted by its own token (docs/control.md). */
    murmurControlTokenId?: string;
    /** Gives back the body's share of the intake budget (idempotent). */
    murmurReleaseBody?: () => void;
  }
}

/** Room for a message's text, data parts and the envelope around it: a text-only message may be this large. */
const TEXT_BODY_BYTES = 8 * 1024 * 1024;
/** Room for the text and envelope beside images at their limits. */
const IMAGE_BODY_SLACK_BYTES = 1024 * 1024;

/**
 * Bodies larger than this are refused -32600 rather than read. It fits the message limits exactly: the largest
 * images context.images allows, base64 (4 bytes for every 3), plus 1 MiB of text and envelope; and never less than
 * 8 MiB, for text-only messages. With the default limits (5 MiB × 4 images) it is 27.7 MiB.
 */
export function bodyLimitFor(maxImageBytes: number, maxImagesPerTurn: number): number {
  return Math.max(TEXT_BODY_BYTES, Math.ceil((maxImageBytes * maxImagesPerTurn * 4) / 3) + IMAGE_BODY_SLACK_BYTES);
}

/** The reply serializer of a body that is already JSON text. */
const asIs = (payload: unknown): string => payload as string;
export const NOT_FOUND_BODY = encodeRefusalBody(doorNotFoundRefusal());
/** A body over the limit, which was never read: -32600 with id null (there is no request to take an id from). */
const TOO_LARGE_BODY = JSON.stringify(failure(null, rpcError('InvalidRequest')));

export function isJsonContentType(value: string | undefined): boolean {
  if (value === 'application/json') return true;
  return value !== undefined && value.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** Step 5's request line and content type (the body is judged once read): POST / with content-type application/json. */
function isRpcRequest(request: FastifyRequest, pathname: string): boolean {
  return request.method === 'POST' && pathname === '/' && isJsonContentType(request.headers['content-type']);
}

/** What the door's routes serve: assembled in app.module.ts (DOOR_ROUTES), registered by start-door.ts. */
export interface DoorRoutes {
  gate: RequestGate;
  card: CardService;
  rpc: RpcPipeline;
  manifest: Manifest;
  bodyLimit: number;
  intake: DoorIntake;
  planes?: PlaneServers;
  /** The record plane (docs/console.md, "Every door serves its record"): every door serves it, undeclared. */
  records?: PlaneServer;
  control?: ControlServer;
}

export const DOOR_ROUTES = Symbol('DOOR_ROUTES');

/**
 * Registers the door on Fastify directly, so that no framework default reaches the wire: the gate runs in
 * onRequest (before the body is read), the body is taken as raw text, and every other path answers 404.
 */
export function registerDoorRoutes(fastify: FastifyInstance, deps: DoorRoutes): void {
  fastify.removeAllContentTypeParsers();
  const { large: intake, small: smallIntake } = deps.intake;
  fastify.addContentTypeParser('*', (request, payload, done) => {
    const header = request.headers['content-length'];
    const declared = header === undefined ? null : Number(header);
    // Over the limit: read and dropped, never held (answered -32600). Else the body waits for room in its intake
    // budget before a byte of it is read: small bodies in their own, so they never queue behind a large one.
    if (declared !== null && declared > deps.bodyLimit) {
      readBody(payload, declared, deps.bodyLimit, () => undefined, done);
      return;
    }
    const budget = declared !== null && declared <= INTAKE_SMALL_BODY_BYTES ? smallIntake : intake;
    const ticket = budget.reserve(declared ?? deps.bodyLimit, (release) => {
      if (payload.destroyed) return release();
      request.murmurReleaseBody = release;
      readBody(payload, declared, deps.bodyLimit, release, done);
    });
    if (ticket.waited) {
      payload.once('close', ticket.cancel);
      deps.rpc.log.info('request body waits for the intake budget', {
        bytes: declared ?? deps.bodyLimit,
        held_bytes: budget.heldBytes,
        waiting: budget.waiting,
      });
    }
  });

  const notFound = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(404).header('content-type', 'application/json').send(Buffer.from(NOT_FOUND_BODY));

  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0];
    // Step 1: the card is served without a door token (a query string does not change the path).
    if ((request.method === 'GET' || request.method === 'HEAD') && pathname === AGENT_CARD_PATH) return;
    // The plane is judged on the target as sent: one that routableUrl rewrote (a malformed escape) is still the plane's
    // to refuse, with the plane's own answer (docs/planes.md, "Path confinement").
    const plane = planeOf(request.originalUrl.split('?')[0]);
    // Step 1: the peer plane is reached without a door token (a peer redeems a handle, which is its credential).
    if (plane === 'peer_files') {
      const served = deps.planes?.peer_files;
      if (served !== undefined && deps.manifest.exports.peer_files !== undefined) return served.answer(request, reply, request.originalUrl);
      return sendPlaneRefusal(reply, plane, deps.manifest);
    }
    // Step 1: the control surface takes its own token, never a door token (docs/control.md).
    if (deps.control !== undefined && isControlPath(pathname)) {
      const admitted = deps.control.admit(request, reply, pathname);
      if ('tokenId' in admitted) {
        request.murmurControlTokenId = admitted.tokenId;
        return;
      }
      return admitted;
    }
    request.murmurLines = readRequestHeaders(request.raw.rawHeaders);
    const verdict = deps.gate.check(request.murmurLines);
    if (!verdict.ok) return reply.code(verdict.status).headers(verdict.headers).send(Buffer.from(verdict.body));
    // Step 4: the operator plane takes the resources/files scope on an authenticated door, then the plane.
    if (plane === 'files') {
      const refusal = deps.gate.scopeRefusal(verdict.caller, 'resources/files');
      if (refusal && !refusal.ok) return reply.code(refusal.status).headers(refusal.headers).send(Buffer.from(refusal.body));
      const served = deps.planes?.files;
      if (served !== undefined && deps.manifest.exports.files !== undefined) return served.answer(request, reply, request.originalUrl);
      return sendPlaneRefusal(reply, plane, deps.manifest);
    }
    // Step 4 too: the record plane takes the resources/records scope on an authenticated door; a public door's callers
    // see every task (seed 000, "Who sees a task"), so they read the record.
    const target = request.originalUrl.split('?')[0];
    if (deps.records !== undefined && (target === RECORDS_PLANE_PATH || target.startsWith(`${RECORDS_PLANE_PATH}/`))) {
      const refusal = deps.gate.scopeRefusal(verdict.caller, RECORDS_SCOPE);
      if (refusal && !refusal.ok) return reply.code(refusal.status).headers(refusal.headers).send(Buffer.from(refusal.body));
      return deps.records.answer(request, reply, request.originalUrl);
    }
    // Step 5, before the body is read: Fastify's media-type parser would answer its own 415 to a content type it
    // cannot parse (empty, `;;`, `a/b/c`), so what step 5 accepts reaches it in one canonical spelling.
    if (!isRpcRequest(request, pathname)) return notFound(request, reply);
    request.raw.headers['content-type'] = 'application/json';
    request.murmurCaller = verdict.caller;
  });

  fastify.get(AGENT_CARD_PATH, async (request, reply) => {
    const card = deps.card.publicCard();
    reply.header('cache-control', PUBLIC_CARD_CACHE_CONTROL).header('etag', card.etag);
    if (ifNoneMatchHits(request.headers['if-none-match'], card.etag)) return reply.code(304).send();
    return reply.code(200).header('content-type', 'application/json').send(Buffer.from(card.json));
  });

  fastify.post('/', { bodyLimit: Number.MAX_SAFE_INTEGER }, async (request, reply) => {
    const release = request.murmurReleaseBody ?? (() => undefined);
    reply.raw.once('close', release);
    const body = request.body as string | typeof TOO_LARGE | undefined;
    // The request keeps no copy of the body: a held SendMessage would keep it until its task settles.
    request.body = undefined;
    try {
      // Step 5: a POST / with content-type application/json (checked in onRequest) and no body.
      if (body === undefined || body === '') return notFound(request, reply);
      if (body === TOO_LARGE) {
        return reply.code(200).header('content-type', 'application/json').header('connection', 'close').send(Buffer.from(TOO_LARGE_BODY));
      }
      const answer = await deps.rpc.handle({
        body,
        headers: request.headers,
        lines: request.murmurLines ?? readRequestHeaders(request.raw.rawHeaders),
        caller: request.murmurCaller!,
        releaseBody: release,
      });
      if (answer.stream) {
        // The stream is written to the raw response: Fastify hands it over, and sends nothing of its own.
        reply.hijack();
        reply.raw.writeHead(answer.status, answer.headers);
        reply.raw.flushHeaders();
        answer.stream(reply.raw);
        return reply;
      }
      // A string sent through a reply serializer keeps content-type exactly as set (without one, Fastify appends a
      // charset to string payloads), and Node writes it in one piece with the head: no Buffer copy, no writev.
      return reply.code(answer.status).headers(answer.headers).serializer(asIs).send(answer.body);
    } finally {
      release();
    }
  });

  // A POST /control that its token admitted in onRequest; every other control request was answered there.
  fastify.post(CONTROL_PATH, { bodyLimit: Number.MAX_SAFE_INTEGER }, async (request, reply) => {
    const release = request.murmurReleaseBody ?? (() => undefined);
    try {
      const body = request.body as string | typeof TOO_LARGE | undefined;
      request.body = undefined;
      if (deps.control === undefined || request.murmurControlTokenId === undefined) return notFound(request, reply);
      return deps.control.change(reply, typeof body === 'string' ? body : '', request.murmurControlTokenId);
    } finally {
      release();
    }
  });

  fastify.route({ method: ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/', handler: notFound });
  fastify.route({ method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/*', handler: notFound });
}

function sendPlaneRefusal(reply: FastifyReply, plane: 'files' | 'peer_files', manifest: Manifest): FastifyReply {
  const refusal = planeRefusal(plane, manifest);
  return reply.code(refusal.status).header('content-type', 'application/json').send(Buffer.from(refusal.body));
}
