import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { JsonObject } from '@murmur/protocol';
import { MAX_JSON_DEPTH, nestsWithin } from '../../common/json-depth.js';
import { IntakeBudget, readBody, TOO_LARGE } from '../../common/request-body.js';
import type { DoorLog } from '../../session/door-log.js';
import type { ToolCallRequest } from '../../tools/tool-call.js';

/** The path the harness's MCP client posts to. */
export const TOOL_SERVER_PATH = '/mcp';

/** While a call is in flight the harness is sent a progress notification this often, so its client does not time out. @unit ms */
const PROGRESS_EVERY_MS = 15_000;

/**
 * A request's body, at most (docs/harness.md, "The runtime's tools"): a tool call's arguments, or any other MCP
 * message a harness posts. A larger one is answered 413 unread when its Content-Length says so, read and dropped
 * otherwise.
 * @unit bytes
 */
export const TOOL_SERVER_BODY_LIMIT = 1024 * 1024;

/**
 * Bytes of request bodies the tool server holds at once, over every run: each request reserves its Content-Length (a
 * chunked one the whole limit) from before its body is read until it is answered, so what the requests a run's
 * sandbox sends can make the door hold is bounded whatever it sends; a request that does not fit waits, unread.
 * @unit bytes
 */
export const TOOL_SERVER_INTAKE_BYTES = 8 * TOOL_SERVER_BODY_LIMIT;

/** The JSON-RPC error of a body over TOOL_SERVER_BODY_LIMIT (id null: no request was read to take one from). */
const TOO_LARGE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: `the request body is larger than the tool server takes (${TOOL_SERVER_BODY_LIMIT} bytes)` },
});
const NOT_JSON_BODY = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the request body is not JSON' } });

const TOO_DEEP_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: `Invalid Request: the request body nests deeper than ${MAX_JSON_DEPTH} levels` },
});

/** A tool as the harness is told of it: the tool inventory's entry. */
interface ServedTool {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

/** One harness run's side of the server: the tools it lists, and how a call of its is answered. */
export interface ToolServerRun {
  tools: readonly ServedTool[];
  call(call: ToolCallRequest): Promise<{ content: string; isError: boolean }>;
}

/** A run's registration: its bearer token, whether one of its calls is in flight (a hang is not counted then), and its end. */
export interface OpenRun {
  readonly token: string;
  readonly inFlight: () => boolean;
  close(): void;
}

/**
 * The loopback tool server (docs/harness.md, "The runtime's tools"): the runtime's tools as one MCP server over the
 * protocol's streamable HTTP. It has no address on the host: each connection is one a run's sandbox relayed to the
 * door's egress socket, handed over here. Each run gets a bearer token of its own, valid until the run ends; the
 * server answers statelessly, one MCP server and transport per request, so a run's calls share nothing but the run.
 */
export class ToolServer {
  private readonly runs = new Map<string, { run: ToolServerRun; inFlight: number }>();
  private readonly http: HttpServer;
  private readonly intake = new IntakeBudget(TOOL_SERVER_INTAKE_BYTES);
  private calls = 0;

  constructor(private readonly log: DoorLog) {
    this.http = createServer((req, res) => void this.answer(req, res));
  }

  /** A connection from a run's sandbox. */
  serve(socket: Socket): void {
    this.http.emit('connection', socket);
  }

  open(run: ToolServerRun): OpenRun {
    const token = randomBytes(32).toString('base64url');
    const entry = { run, inFlight: 0 };
    this.runs.set(token, entry);
    return { token, inFlight: () => entry.inFlight > 0, close: () => this.runs.delete(token) };
  }

  close(): void {
    this.runs.clear();
    this.http.closeAllConnections();
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry = this.runs.get(bearer(req.headers.authorization));
    if (!entry) {
      res
        .writeHead(401, { 'content-type': 'application/json', connection: 'close' })
        .end('{"error":"unauthenticated","message":"this tool server answers the harness run it was opened for"}');
      return;
    }
    if (new URL(req.url ?? '/', 'http://tools').pathname !== TOOL_SERVER_PATH) {
      res
        .writeHead(404, { 'content-type': 'application/json', connection: 'close' })
        .end(`{"error":"not_found","message":"the tool server answers ${TOOL_SERVER_PATH}"}`);
      return;
    }
    const body = req.method === 'POST' ? await this.bodyOf(req, res) : undefined;
    if (body === null) return;
    try {
      await this.mcp(entry, req, res, body);
    } catch (error) {
      this.log.error('tool server: a request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal","message":"the tool server could not answer"}');
      else res.end();
    }
  }

  /**
   * A POST's body, parsed, once the intake budget has room for it; the reservation is given back when the request is
   * answered. Null when it was answered here instead (too large, not JSON) or its sender went away or stalled.
   */
  private bodyOf(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const length = req.headers['content-length'];
    const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
    const refuse = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' }).end(text);
      return null;
    };
    if (declared !== null && declared > TOOL_SERVER_BODY_LIMIT) return Promise.resolve(refuse(413, TOO_LARGE_BODY));
    return new Promise((resolve) => {
      const waiting = this.intake.reserve(declared ?? TOOL_SERVER_BODY_LIMIT, (release) => {
        res.once('close', release);
        readBody(req, declared, TOOL_SERVER_BODY_LIMIT, release, (error, body) => {
          if (error) return resolve(null);
          if (body === TOO_LARGE) return resolve(refuse(413, TOO_LARGE_BODY));
          let parsed: unknown;
          try {
            parsed = JSON.parse(body as string);
          } catch {
            return resolve(refuse(400, NOT_JSON_BODY));
          }
          resolve(nestsWithin(parsed) ? parsed : refuse(400, TOO_DEEP_BODY));
        });
      });
      // A sender that leaves while its body waits for room gives its place in the queue back.
      res.once('close', () => {
        waiting.cancel();
        resolve(null);
      });
    });
  }

  /** One MCP request, answered by a server and a stateless transport of its own; `body` a POST's, already read. */
  private async mcp(entry: { run: ToolServerRun; inFlight: number }, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    // Loaded when a harness first calls: a door on transport: http never loads the SDK.
    const [{ Server }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const server = new Server({ name: 'murmur', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: entry.run.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const meta = request.params._meta as Record<string, unknown> | undefined;
      const call: ToolCallRequest = {
        id: toolCallIdOf(meta) ?? `mcp_${++this.calls}`,
        name: request.params.name,
        input: (request.params.arguments ?? {}) as Record<string, unknown>,
      };
      const progressToken = meta?.progressToken;
      let progress = 0;
      const ticking =
        typeof progressToken === 'string' || typeof progressToken === 'number'
          ? setInterval(
              () => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress } }).catch(() => undefined),
              PROGRESS_EVERY_MS,
            )
          : null;
      entry.inFlight += 1;
      try {
        const result = await entry.run.call(call);
        return { content: [{ type: 'text' as const, text: result.content }], isError: result.isError };
      } finally {
        entry.inFlight -= 1;
        if (ticking !== null) clearInterval(ticking);
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

/** The token of `Authorization: Bearer <token>`, or "" (which names no run). */
function bearer(header: string | undefined): string {
  const match = /^Bearer (\S+)$/i.exec(header ?? '');
  return match?.[1] ?? '';
}

/** The harness's own id for the tool call, which its stream names too: Claude Code's tool_use id, Codex's call id. */
function toolCallIdOf(meta: Record<string, unknown> | undefined): string | null {
  const id = meta?.['claudecode/toolUseId'] ?? meta?.callId;
  return typeof id === 'string' && id !== '' && id.length <= 200 ? id : null;
}
