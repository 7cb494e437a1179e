/**
 * Lower-level wire helpers for the request-pipeline tests: node:http requests with full control over header
 * lines (repeated lines, exact names) and raw body bytes, JSON-RPC error assertions, and trace reading.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The raw header lines as [name, value, name, value, …]. */
  rawHeaders: string[];
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  json: any;
}

export interface RawRequest {
  method?: string;
  /** Path and query; default "/". */
  path?: string;
  /** A value given as an array is sent as one header line per element. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/** One HTTP/1.1 request on a fresh connection, with the headers exactly as given (no defaults but Host and Content-Length). */
export function httpRequest(url: string, request: RawRequest = {}): Promise<RawAnswer> {
  const target = new URL(url);
  const headers: Record<string, string | string[]> = { ...(request.headers ?? {}) };
  const hasLength = Object.keys(headers).some((name) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding');
  if (request.body !== undefined && !hasLength) headers['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method ?? 'POST',
        path: request.path ?? '/',
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/**
 * Sends `head` (request line and header lines, without the blank line) and `body` byte for byte on a fresh
 * connection, adding Content-Length and Connection: close, and reads the answer until the door closes it.
 */
export function rawHttp(url: string, head: string[], body = ''): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const lines = all.slice(0, split).split('\r\n');
      const status = Number(lines[0].split(' ')[1]);
      const rawHeaders: string[] = [];
      const headers: http.IncomingHttpHeaders = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).trim();
        rawHeaders.push(name, value);
        headers[name.toLowerCase()] = value;
      }
      const text = all.slice(split + 4);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status, headers, rawHeaders, text, json });
    });
    const bytes = Buffer.from(body);
    socket.write([...head, `Host: ${target.host}`, `Content-Length: ${bytes.length}`, 'Connection: close', '', ''].join('\r\n'));
    // No half-close: the door answers and closes (Connection: close); a FIN sent early may drop a slow answer.
    socket.write(bytes);
  });
}

export const RPC_HEADERS: Record<string, string> = { 'content-type': 'application/json', 'A2A-Version': '1.0' };

/** POST / with the standard headers (overridable) and a body that is sent as given, or JSON-encoded. */
export function postRaw(url: string, body: unknown, headers: Record<string, string | string[]> = RPC_HEADERS): Promise<RawAnswer> {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return httpRequest(url, { method: 'POST', path: '/', headers, body: text });
}

export function envelope(method: unknown, params?: unknown, id: unknown = 1): Record<string, unknown> {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  if (params !== undefined) body.params = params;
  return body;
}

export interface ExpectedError {
  code: number;
  /** Exact message, or a pattern it must match. */
  message?: string | RegExp;
  /** The request id the answer must echo (default: not checked). */
  id?: unknown;
  /** The ErrorInfo's reason; checked when given. */
  reason?: string;
  /** The ErrorInfo's domain; default a2a-protocol.org when `reason` or `metadata` is given. */
  domain?: string;
  /** The exact ErrorInfo metadata; checked when given. `null` asserts the error carries no data at all. */
  metadata?: Record<string, string> | null;
}

/**
 * Asserts a JSON-RPC error answer as the seed fixes every one from step 6 on: HTTP 200, content-type
 * application/json, no A2A-Extensions on a refusal, a JSON-RPC 2.0 envelope with only jsonrpc, id and error.
 */
export function assertRpcError(
  answer: { status: number; headers: http.IncomingHttpHeaders | Headers; json: unknown; text: string },
  expected: ExpectedError,
): void {
  const header = (name: string): string | undefined => {
    const h = answer.headers;
    if (h instanceof Headers) return h.get(name) ?? undefined;
    const v = h[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  assert.equal(answer.status, 200, `HTTP status for ${answer.text.slice(0, 300)}`);
  assert.match(header('content-type') ?? '', /^application\/json/);
  assert.equal(header('a2a-extensions'), undefined, 'a refusal carries no A2A-Extensions');
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON-RPC envelope
  const body = answer.json as any;
  assert.ok(body && typeof body === 'object', `not a JSON body: ${answer.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(body).sort(), ['error', 'id', 'jsonrpc'], `envelope keys of ${answer.text.slice(0, 300)}`);
  assert.equal(body.jsonrpc, '2.0');
  if ('id' in expected) assert.deepEqual(body.id, expected.id);
  assert.equal(body.error.code, expected.code, `error code of ${answer.text.slice(0, 500)}`);
  if (typeof expected.message === 'string') assert.equal(body.error.message, expected.message);
  else if (expected.message instanceof RegExp) assert.match(body.error.message, expected.message);
  if (expected.metadata === null) {
    assert.equal('data' in body.error, false, `standard JSON-RPC errors carry no data: ${answer.text.slice(0, 300)}`);
  } else if (expected.metadata !== undefined || expected.reason !== undefined) {
    assert.ok(Array.isArray(body.error.data) && body.error.data.length === 1, `error.data holds one ErrorInfo: ${answer.text.slice(0, 300)}`);
    const info = body.error.data[0];
    assert.equal(info['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
    assert.equal(info.domain, expected.domain ?? 'a2a-protocol.org');
    if (expected.reason !== undefined) assert.equal(info.reason, expected.reason);
    if (expected.metadata !== undefined) assert.deepEqual(info.metadata, expected.metadata);
  }
}

/** The standard JSON-RPC errors (seed 000, "Errors"): fixed message, no data. */
export const STANDARD = {
  parse: { code: -32700, message: 'Invalid JSON payload', metadata: null },
  invalidRequest: { code: -32600, message: 'Request payload validation error', metadata: null },
  methodNotFound: { code: -32601, message: 'Method not found', metadata: null },
} as const satisfies Record<string, ExpectedError>;

export const PUSH_NOT_SUPPORTED: ExpectedError = {
  code: -32003,
  message: 'push notifications are not supported by this agent',
  reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  metadata: {},
};

export function versionRefusal(requested: string): ExpectedError {
  return {
    code: -32009,
    message: `A2A version '${requested}' is not supported; this agent speaks 1.0`,
    reason: 'VERSION_NOT_SUPPORTED',
    metadata: { requestedVersion: requested, supportedVersions: '1.0' },
  };
}

export const PUSH_CONFIG_METHODS = [
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
] as const;

/** Every record of the session's trace.jsonl, parsed. */
export function traceRecords(recordsDir: string): Array<Record<string, unknown>> {
  const file = path.join(recordsDir, 'trace.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A seeded PRNG (mulberry32): the same seed gives the same sequence on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Calls a method and reports how the door answers it without waiting for a stream to end: a text/event-stream
 * answer is reported as 'stream' and its socket destroyed at once, so the door sees the client leave.
 */
export function probeMethod(
  url: string,
  method: string,
  params: unknown = {},
): Promise<{ kind: 'stream' } | { kind: 'json'; status: number; code: number | null }> {
  const target = new URL(url);
  const body = JSON.stringify(envelope(method, params, 'probe'));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/',
        headers: { ...RPC_HEADERS, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
      },
      (res) => {
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          req.destroy();
          resolve({ kind: 'stream' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code: number } };
            resolve({ kind: 'json', status: res.statusCode ?? 0, code: parsed.error?.code ?? null });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
