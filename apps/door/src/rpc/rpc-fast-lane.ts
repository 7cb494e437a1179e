import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { type RequestHeaderLines, readRequestHeaders } from '@murmur/protocol';
import type { RequestGate } from '../auth/request-gate.js';
import type { Caller } from '../auth/caller.js';
import { type IntakeBudget, readBody } from '../common/request-body.js';
import { INTAKE_SMALL_BODY_BYTES } from './intake-budget.js';
import type { RpcPipeline, RpcReply } from './rpc-pipeline.js';
import { isJsonContentType, NOT_FOUND_BODY } from './rpc-routes.js';

/**
 * The door's common request — POST / with a JSON content type, a door token the gate admits (or none needed) and a
 * small declared body for which the small intake budget has room now — served on node:http directly, before Fastify
 * routes it: no hook chain, no content-type parser, no reply object; the pipeline answers at once when it can (GetTask
 * of a mirrored task). Every other request, and any refusal of the gate, goes to Fastify's routes (rpc-routes.ts),
 * which answer the same requests the same bytes (docs/benchmarks.md, "Issue 28"). Returns whether it took the request.
 */
export type RpcFastLane = (request: IncomingMessage, response: ServerResponse) => boolean;

/** The door's fast lane, made from the same gate, pipeline and intake as its routes (app.module.ts). */
export const RPC_FAST_LANE = Symbol('RPC_FAST_LANE');

export function rpcFastLane(deps: { gate: RequestGate; rpc: RpcPipeline; smallIntake: IntakeBudget; bodyLimit: number }): RpcFastLane {
  return (request, response) => {
    if (request.method !== 'POST' || request.url !== '/') return false;
    const declared = smallDeclaredLength(request);
    if (declared === null || !isJsonContentType(request.headers['content-type'])) return false;
    const lines = readRequestHeaders(request.rawHeaders);
    const verdict = deps.gate.check(lines);
    if (!verdict.ok) return false;
    const release = deps.smallIntake.tryReserve(declared);
    if (release === null) return false;
    // What the routes' onRequest hook does before the body is read: one canonical spelling of the content type.
    request.headers['content-type'] = 'application/json';
    readBody(request, declared, deps.bodyLimit, release, (error, body) => {
      if (error) response.destroy();
      else serveBody(deps.rpc, request, response, verdict.caller, lines, body as string, release);
    });
    return true;
  };
}

/** The timeouts Fastify gives the server it makes itself, which it leaves to a server factory to set. */
interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * Fastify's `serverFactory`: the HTTP/1 server Fastify would make (its timeouts as Fastify sets them), whose requests
 * the fast lane sees first once `lane()` has one (it is made after the app, from the app's providers).
 */
export function serverWithFastLane(lane: () => RpcFastLane | null) {
  return (handler: http.RequestListener, options: ServerTimeouts): http.Server => {
    const server = http.createServer((request, response) => {
      if (!lane()?.(request, response)) handler(request, response);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}

/** The declared length of a body the fast lane takes: present, not chunked, at most INTAKE_SMALL_BODY_BYTES. */
function smallDeclaredLength(request: IncomingMessage): number | null {
  const header = request.headers['content-length'];
  if (header === undefined || request.headers['transfer-encoding'] !== undefined) return null;
  const declared = Number(header);
  return Number.isInteger(declared) && declared >= 0 && declared <= INTAKE_SMALL_BODY_BYTES ? declared : null;
}

function serveBody(
  rpc: RpcPipeline,
  request: IncomingMessage,
  response: ServerResponse,
  caller: Caller,
  lines: RequestHeaderLines,
  body: string,
  release: () => void,
): void {
  // Step 5: a POST / with content-type application/json and no body.
  if (body === '') {
    release();
    writeJson(response, 404, { 'content-type': 'application/json' }, NOT_FOUND_BODY);
    return;
  }
  const rpcRequest = { body, headers: request.headers, lines, caller, releaseBody: release };
  let answer: RpcReply | Promise<RpcReply>;
  try {
    answer = rpc.answer(rpcRequest);
  } catch (error) {
    release();
    failRequest(rpc, response, error);
    return;
  }
  if (!(answer instanceof Promise)) {
    release();
    writeReply(response, answer);
    return;
  }
  // A method that waits (a held SendMessage) gives the body back once it stored the message, or when the client goes.
  response.once('close', release);
  answer.then(
    (reply) => {
      release();
      writeReply(response, reply);
    },
    (error: unknown) => {
      release();
      failRequest(rpc, response, error);
    },
  );
}

/** A JSON answer as Fastify's reply writes it (status, the headers as set, content-length), or an event stream. */
function writeReply(response: ServerResponse, reply: RpcReply): void {
  if (reply.stream) {
    response.writeHead(reply.status, reply.headers);
    response.flushHeaders();
    reply.stream(response);
    return;
  }
  writeJson(response, reply.status, reply.headers, reply.body);
}

function writeJson(response: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: string): void {
  if (response.destroyed) return;
  response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** The pipeline answers every fault it knows; anything else is the answer Fastify's default error handler gives. */
function failRequest(rpc: RpcPipeline, response: ServerResponse, error: unknown): void {
  rpc.log.error('request failed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  writeJson(
    response,
    500,
    { 'content-type': 'application/json; charset=utf-8' },
    JSON.stringify({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' }),
  );
}
