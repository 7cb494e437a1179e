/** A tiny HTTP server for tests: records every request and hands it to a per-test handler. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The parsed JSON-RPC body, when there is one. */
  rpc: { jsonrpc: string; id: number | string; method: string; params?: Record<string, unknown> } | null;
  /** Resolves when the client closes (or the server ends) this request's connection. */
  closed: Promise<void>;
}

export type Handler = (request: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let rpc: RecordedRequest['rpc'] = null;
      try {
        rpc = body === '' ? null : JSON.parse(body);
      } catch {
        rpc = null;
      }
      const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
      const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, rpc, closed };
      requests.push(recorded);
      void handler(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts an SSE answer. */
export function sseHead(res: ServerResponse, extra: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...extra });
  res.flushHeaders();
}

/** One SSE event as the door writes it: optional id, one data line holding a JSON-RPC response. */
export function sseEvent(rpcId: number | string, result: unknown, id?: string | number | bigint): string {
  const data = `data: ${JSON.stringify({ jsonrpc: '2.0', id: rpcId, result })}\n\n`;
  return id === undefined ? data : `id: ${id}\n${data}`;
}

export function jsonAnswer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` until it holds, or fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}
