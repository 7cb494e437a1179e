/**
 * A fake model provider on loopback speaking the real wire (docs/drivers.md, "The fake providers"): each request
 * plays the next scripted reply (a streamed turn, or an HTTP error in the provider's shape); every request is
 * recorded with its headers and body, when its first byte went out, and when its connection closed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ANTHROPIC_MALFORMED,
  ANTHROPIC_ORPHAN_DELTA,
  ANTHROPIC_UNKNOWN_PARTS,
  anthropicErrorBody,
  anthropicEvents,
  anthropicStreamError,
} from './anthropic-wire.js';
import { type FakeReply, type FakeStatus, type FakeTurn, isStatus, type WireEvent } from './fake-turn.js';
import { OPENAI_MALFORMED, openAiErrorBody, openAiEvents, openAiStreamError } from './openai-wire.js';
import { responsesEvents } from './responses-wire.js';

/** `openai`: chat completions; `responses`: OpenAI Responses (what Codex speaks); `anthropic`: messages. */
export type FakeKind = 'openai' | 'responses' | 'anthropic';

/** The fake's tokenizer: this many characters of a request's body are one token. */
const FAKE_CHARS_PER_TOKEN = 4;

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: the request body as the driver sent it, read by tests
  body: any;
  receivedAt: number;
  /** When the answer's first body byte was written. */
  firstByteAt: number | null;
  /** When the last event was written. */
  lastEventAt: number | null;
  eventsWritten: number;
  /** When the connection closed, and whether it closed before the answer ended (the client aborted). */
  closedAt: number | null;
  closedEarly: boolean;
  reply: FakeReply;
}

/** Wall-clock milliseconds with sub-millisecond precision (comparable with Date.now()), for the bench's latencies. */
export const preciseNow = () => performance.timeOrigin + performance.now();

const ROUTES: Record<FakeKind, RegExp> = { openai: /^\/(?:v1\/)?chat\/completions$/, responses: /^\/(?:v1\/)?responses$/, anthropic: /^\/v1\/messages$/ };

/** A request as a responder reads it: its path, headers and parsed body. */
export interface FakeRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export class FakeProvider {
  readonly requests: RecordedRequest[] = [];
  private readonly replies: FakeReply[] = [];
  private readonly server: Server;
  private readonly waiters = new Set<() => void>();
  url = '';

  constructor(
    readonly kind: FakeKind,
    /**
     * `contextLimitTokens`: the model's context, counted by the fake's tokenizer (FAKE_CHARS_PER_TOKEN characters of the
     * request body a token): a request past it is refused 400 in the provider's context-length shape, and every turn's
     * usage reports the counted input, as a real provider's does.
     */
    private readonly options: {
      fallback?: FakeReply;
      expectKey?: string;
      host?: string;
      contextLimitTokens?: number;
      /** Decides the reply from the request itself (a harness's side requests come in no fixed order); the queue when it returns undefined. */
      respond?: (request: FakeRequest) => FakeReply | undefined;
      /** Headers on every streamed answer: a provider's rate-limit windows, which a harness reports. */
      headers?: Record<string, string>;
    } = {},
  ) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  /** The base URL a choice's base_url takes: `…/v1` for openai-compatible and Responses, the origin for anthropic. */
  get baseUrl(): string {
    return this.kind === 'anthropic' ? this.url : `${this.url}/v1`;
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, this.options.host ?? '127.0.0.1', resolve));
    const address = this.server.address() as AddressInfo;
    this.url = `http://${address.address}:${address.port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Replies for the next requests, in order; after them the fallback (a short text answer) plays. */
  enqueue(...replies: FakeReply[]): this {
    this.replies.push(...replies);
    return this;
  }

  /** Resolves once `predicate` holds over the recorded requests (checked on every change). */
  async waitFor(predicate: (requests: RecordedRequest[]) => boolean, timeoutMs = 10_000): Promise<void> {
    if (predicate(this.requests)) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate(this.requests)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`fake ${this.kind} provider: condition not met in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'POST' || !ROUTES[this.kind].test(path)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = null;
    }
    const keyOk = this.options.expectKey === undefined || this.presentedKey(req) === this.options.expectKey;
    const limit = this.options.contextLimitTokens;
    const counted = Math.ceil(Buffer.concat(chunks).length / FAKE_CHARS_PER_TOKEN);
    const scripted: FakeReply = keyOk
      ? (this.options.respond?.({ path, headers: req.headers, body }) ??
        this.replies.shift() ??
        this.options.fallback ?? { text: ['ok'], usage: { input: 10, output: 1 } })
      : // As OpenAI does, the refusal quotes the key it was given: the door must not pass it on.
        { status: 401, message: `Incorrect API key provided: ${this.presentedKey(req) ?? '(none)'}` };
    const reply: FakeReply =
      limit === undefined || isStatus(scripted)
        ? scripted
        : counted > limit
          ? this.contextLengthError(counted, limit)
          : { ...scripted, usage: { output: 1, ...scripted.usage, input: counted } };
    const record: RecordedRequest = {
      path,
      headers: req.headers,
      body,
      receivedAt: preciseNow(),
      firstByteAt: null,
      lastEventAt: null,
      eventsWritten: 0,
      closedAt: null,
      closedEarly: false,
      reply,
    };
    this.requests.push(record);
    let finished = false;
    res.once('close', () => {
      record.closedAt = preciseNow();
      record.closedEarly = !finished;
      this.changed();
    });
    this.changed();
    if (isStatus(reply)) {
      this.writeStatus(res, reply);
      finished = true;
      return;
    }
    finished = await this.stream(
      res,
      reply,
      record,
      typeof (body as { model?: unknown })?.model === 'string' ? (body as { model: string }).model : 'fake-model',
    );
  }

  private presentedKey(req: IncomingMessage): string | undefined {
    // Anthropic takes x-api-key (the API's documented header) or a bearer token (what @anthropic-ai/sdk 1.x sends).
    if (this.kind === 'anthropic' && typeof req.headers['x-api-key'] === 'string') return req.headers['x-api-key'];
    return req.headers.authorization?.replace(/^Bearer /, '');
  }

  /** The provider's refusal of a request past the model's context, in its own words. */
  private contextLengthError(counted: number, limit: number): FakeStatus {
    return this.kind !== 'anthropic'
      ? {
          status: 400,
          errorType: 'invalid_request_error',
          message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${counted} tokens.`,
        }
      : { status: 400, errorType: 'invalid_request_error', message: `prompt is too long: ${counted} tokens > ${limit} maximum` };
  }

  private writeStatus(res: ServerResponse, reply: FakeStatus): void {
    const body = this.kind === 'anthropic' ? anthropicErrorBody(reply) : openAiErrorBody(reply);
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      ...(this.kind === 'anthropic' ? { 'request-id': 'req_fake' } : { 'x-request-id': 'req_fake' }),
      ...this.options.headers,
      ...reply.headers,
    });
    res.end(body);
  }

  /** Writes the turn's events; false when it ended early (a fault, or the client went away). */
  private async stream(res: ServerResponse, turn: FakeTurn, record: RecordedRequest, model: string): Promise<boolean> {
    if (turn.fault?.kind === 'no-headers') return false;
    const events = this.kind === 'openai' ? openAiEvents(turn, model) : this.kind === 'responses' ? responsesEvents(turn, model) : anthropicEvents(turn, model);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...this.options.headers,
      ...turn.headers,
    });
    let i = -1;
    for (const event of events) {
      i += 1;
      if (turn.fault && i === turn.fault.afterEvents) {
        if (turn.fault.kind === 'stall') return false;
        if (turn.fault.kind === 'disconnect') {
          // What was written reaches the client first (destroy() would discard it); then the connection drops, no end.
          await new Promise<void>((resolve) => res.write('', () => resolve()));
          await new Promise((resolve) => setTimeout(resolve, 20));
          res.socket?.destroy();
          return false;
        }
        if (turn.fault.kind === 'error') {
          const type = turn.fault.errorType ?? 'overloaded_error';
          const message = turn.fault.errorMessage;
          this.write(res, this.kind === 'anthropic' ? anthropicStreamError(type, message) : openAiStreamError(type, message), record);
          res.end();
          return false;
        }
        if (turn.fault.kind === 'orphan-delta') {
          if (this.kind !== 'anthropic') throw new Error('orphan-delta is an Anthropic fault');
          this.write(res, ANTHROPIC_ORPHAN_DELTA, record);
        } else if (turn.fault.kind === 'unknown-parts') {
          if (this.kind !== 'anthropic') throw new Error('unknown-parts is an Anthropic fault');
          for (const part of ANTHROPIC_UNKNOWN_PARTS) this.write(res, part, record);
        } else if (turn.fault.kind === 'not-object') this.write(res, { data: '2' }, record);
        else this.write(res, this.kind === 'anthropic' ? ANTHROPIC_MALFORMED : OPENAI_MALFORMED, record);
      }
      if (turn.paceMs) await new Promise((resolve) => setTimeout(resolve, turn.paceMs));
      if (res.destroyed) return false;
      if (!this.write(res, event, record)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
    return true;
  }

  private write(res: ServerResponse, event: WireEvent, record: RecordedRequest): boolean {
    const text = `${event.event ? `event: ${event.event}\n` : ''}data: ${event.data}\n\n`;
    const now = preciseNow();
    record.firstByteAt ??= now;
    record.lastEventAt = now;
    record.eventsWritten += 1;
    const flushed = res.write(text);
    this.changed();
    return flushed;
  }
}
