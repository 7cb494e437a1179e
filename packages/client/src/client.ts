/**
 * MurmurClient: one door address, a typed method for every door method (seed 000), results typed with
 * @murmur/protocol's wire types. Runs in Node 20 and in browsers: it uses only fetch, AbortController and
 * TextDecoder, and imports nothing from `node:`.
 */
import {
  A2A_VERSION,
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  type AgentCard,
  type ListTasksRequest,
  type ListTasksResponse,
  METHOD,
  type MethodName,
  type SendMessageRequest,
  type SendMessageResponse,
  type StopSessionResult,
  type Task,
} from '@murmur/protocol';
import { ConnectionError, InvalidResponseError } from './errors.js';
import { type Answer, expectObject, httpRefusal, readRpcAnswer } from './internal/answer.js';
import { type BackoffPolicy, retryDelay, shouldRetry, sleep } from './internal/retry.js';
import { selectSseTransport, sseTransport } from './internal/sse.js';
import type { FetchLike, SseTransport, SseTransportName } from './internal/sse-types.js';
import { type TextMessageOptions, textMessage } from './messages.js';
import { MurmurStream, type ReconnectOptions, runStream, type StreamDeps, type StreamMethod, type StreamOptions, type StreamPlan } from './stream.js';

export interface RetryOptions {
  /** Retries of a one-shot request after a failure that shouldRetry allows (0: none). @default 2 */
  maxRetries?: number;
  /** @default 500 @unit ms */
  initialDelayMs?: number;
  /** @default 8000 @unit ms */
  maxDelayMs?: number;
}

export interface MurmurClientOptions {
  /** A door token (`mur token` prints them). Sent as `Authorization: Bearer <token>`; a public door ignores it. */
  token?: string;
  /** The fetch to call; in browsers pass a bound one. @default globalThis.fetch */
  fetch?: FetchLike;
  /**
   * Headers sent on every request and every stream connection, beside the client's own (a door's runtime headers,
   * such as `x-murmur-task-origin`). A header the client sets itself wins over one of the same name, in any case:
   * `A2A-Version`, `Content-Type`, `Accept`, `Authorization` when `token` is given, and a stream's `A2A-Extensions`
   * and `Last-Event-ID`. A name or value `fetch` would refuse throws here, in the constructor.
   * @default {}
   */
  headers?: Readonly<Record<string, string>>;
  /** Retries of one-shot requests. Reads retry on transient failures; SendMessage, CancelTask and StopSession only where the door cannot have acted. */
  retry?: RetryOptions;
  /** Reconnect defaults for every stream (each stream's own options win). @default { maxRetries: 8, initialDelayMs: 500, maxDelayMs: 15000 } */
  reconnect?: ReconnectOptions | false;
  /** Heartbeat watchdog default for every stream. @default 45000 @unit ms */
  heartbeatTimeoutMs?: number;
  /** The SSE transport: `auto` uses fetch-event-source where there is a DOM and fetch + eventsource-parser elsewhere. @default 'auto' */
  sseTransport?: SseTransportName | 'auto';
  /** The most characters one SSE event may hold (fetch transport) before the stream fails. @default 33554432 */
  maxEventSize?: number;
  /**
   * The most bytes one answer's body (JSON-RPC, the card) may hold: past it the call fails with
   * `InvalidResponseError('too-large')`, the rest unread. @default 33554432 @unit bytes
   */
  maxResponseSize?: number;
}

export interface CallOptions {
  /** Aborting it rejects the call with the signal's reason. A held SendMessage's task runs on regardless. */
  signal?: AbortSignal;
  /** Overrides the client's `retry.maxRetries` for this call. */
  maxRetries?: number;
}

export interface SendTextOptions extends Omit<TextMessageOptions, 'taskId'>, CallOptions {
  /** Answer as soon as the task is accepted (TASK_STATE_SUBMITTED) instead of when it settles. @default false */
  returnImmediately?: boolean;
}

export interface ReplyOptions extends Omit<TextMessageOptions, 'taskId' | 'forgetSession'>, CallOptions {
  /** Answer once the reply is accepted (TASK_STATE_WORKING) instead of when the task settles again. @default false */
  returnImmediately?: boolean;
}

const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8000 };
const DEFAULT_MAX_EVENT_SIZE = 32 * 1024 * 1024;
const DEFAULT_MAX_RESPONSE_SIZE = 32 * 1024 * 1024;

export class MurmurClient {
  /** The door's address as given, without trailing slashes. */
  readonly address: string;
  /** The SSE transport this client's streams use. */
  readonly sseTransport: SseTransportName;
  readonly #token: string | undefined;
  /** `options.headers`, checked and with lower-case names. */
  readonly #extraHeaders: readonly (readonly [string, string])[];
  readonly #fetch: FetchLike;
  readonly #retry: Required<RetryOptions>;
  readonly #streamDefaults: StreamOptions;
  readonly #transport: SseTransport;
  readonly #maxEventSize: number;
  readonly #maxResponseSize: number;
  #nextId = 1;

  /**
   * @param address The door's address, e.g. `http://127.0.0.1:41873` (the card's `supportedInterfaces[0].url`),
   *   or a same-origin proxy path such as `/api/doors/ses_…` in a browser. JSON-RPC goes to `<address>/`, the card
   *   is read from `<address>/.well-known/agent-card.json`.
   */
  constructor(address: string | URL, options: MurmurClientOptions = {}) {
    this.address = String(address).replace(/\/+$/, '');
    this.#token = options.token;
    // Headers checks every name and value as fetch would, now rather than at the first request.
    this.#extraHeaders = [...new Headers(options.headers ?? {})];
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#streamDefaults = { reconnect: options.reconnect, heartbeatTimeoutMs: options.heartbeatTimeoutMs };
    this.sseTransport = selectSseTransport(options.sseTransport ?? 'auto');
    this.#transport = sseTransport(this.sseTransport);
    this.#maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
    this.#maxResponseSize = options.maxResponseSize ?? DEFAULT_MAX_RESPONSE_SIZE;
  }

  // --- one-shot methods -------------------------------------------------------------------------------------

  /** SendMessage: starts a task, or replies to one waiting for input; answers when it settles unless returnImmediately. */
  async sendMessage(request: SendMessageRequest, options: CallOptions = {}): Promise<SendMessageResponse> {
    const result = await this.#rpc(METHOD.SendMessage, request, options, false);
    const body = expectObject(result, METHOD.SendMessage, 'a SendMessageResponse');
    if (!('task' in body) && !('message' in body)) {
      throw new InvalidResponseError('unexpected-result', 'SendMessage: the result holds neither task nor message');
    }
    return body as SendMessageResponse;
  }

  /** Sends `text` as a new task and returns the task: settled (completed, failed, input-required…) or, with returnImmediately, submitted. */
  async sendText(text: string, options: SendTextOptions = {}): Promise<Task> {
    const request: SendMessageRequest = { message: textMessage(text, options) };
    if (options.returnImmediately !== undefined) request.configuration = { returnImmediately: options.returnImmediately };
    return taskOf(await this.sendMessage(request, options), 'sendText');
  }

  /** Answers a task waiting in TASK_STATE_INPUT_REQUIRED with `text`; returns the task when it settles again. */
  async reply(taskId: string, text: string, options: ReplyOptions = {}): Promise<Task> {
    const request: SendMessageRequest = { message: textMessage(text, { ...options, taskId }) };
    if (options.returnImmediately !== undefined) request.configuration = { returnImmediately: options.returnImmediately };
    return taskOf(await this.sendMessage(request, options), 'reply');
  }

  /** GetTask. A task the caller does not see throws TaskNotFoundError. */
  async getTask(id: string, options: CallOptions = {}): Promise<Task> {
    return expectTask(await this.#rpc(METHOD.GetTask, { id }, options, true), METHOD.GetTask);
  }

  /** ListTasks: one page, most recently changed first. */
  async listTasks(params: ListTasksRequest = {}, options: CallOptions = {}): Promise<ListTasksResponse> {
    const body = expectObject(await this.#rpc(METHOD.ListTasks, params, options, true), METHOD.ListTasks, 'a ListTasksResponse');
    if (!Array.isArray(body.tasks) || typeof body.nextPageToken !== 'string') {
      throw new InvalidResponseError('unexpected-result', 'ListTasks: the result has no tasks array or nextPageToken');
    }
    return body as unknown as ListTasksResponse;
  }

  /** Every page of a ListTasks walk, following nextPageToken until it is "". */
  async *listTaskPages(params: ListTasksRequest = {}, options: CallOptions = {}): AsyncGenerator<ListTasksResponse, void, undefined> {
    const tokens = new Set<string>();
    let pageToken = params.pageToken ?? '';
    for (;;) {
      const page = await this.listTasks({ ...params, pageToken }, options);
      yield page;
      if (page.nextPageToken === '') return;
      if (tokens.has(page.nextPageToken)) {
        throw new InvalidResponseError(
          'unexpected-result',
          `ListTasks: nextPageToken ${JSON.stringify(page.nextPageToken)} came back twice; stopping the walk`,
        );
      }
      tokens.add(page.nextPageToken);
      pageToken = page.nextPageToken;
    }
  }

  /**
   * Every task a ListTasks walk returns, page after page. The door returns each matching task once while none
   * changes state; one that changes during the walk moves ahead of the cursor (seed 000, "ListTasks").
   */
  async *listAllTasks(params: ListTasksRequest = {}, options: CallOptions = {}): AsyncGenerator<Task, void, undefined> {
    for await (const page of this.listTaskPages(params, options)) yield* page.tasks;
  }

  /** CancelTask. An ended task throws TaskNotCancelableError (metadata.state names how it ended). */
  async cancelTask(id: string, options: CallOptions = {}): Promise<Task> {
    return expectTask(await this.#rpc(METHOD.CancelTask, { id }, options, false), METHOD.CancelTask);
  }

  /** murmur.StopSession: cancels every live task and reports what the session leaves running. The door stays up. */
  async stopSession(options: CallOptions = {}): Promise<StopSessionResult> {
    const body = expectObject(await this.#rpc(METHOD.StopSession, {}, options, false), METHOD.StopSession, 'a StopSession result');
    if (!Array.isArray(body.canceled) || !Array.isArray(body.residue) || typeof body.session_id !== 'string') {
      throw new InvalidResponseError('unexpected-result', 'murmur.StopSession: the result lacks session_id, canceled or residue');
    }
    return body as unknown as StopSessionResult;
  }

  /** GetExtendedAgentCard: the authenticated door's card with the capsule extension. A public door throws UnsupportedOperationError. */
  async getExtendedCard(options: CallOptions = {}): Promise<AgentCard> {
    return expectObject(
      await this.#rpc(METHOD.GetExtendedAgentCard, undefined, options, true),
      METHOD.GetExtendedAgentCard,
      'an AgentCard',
    ) as unknown as AgentCard;
  }

  /**
   * The public card, `GET /.well-known/agent-card.json` (served without a token). Always asked of the door: a
   * browser's cache revalidates with the card's ETag (the door answers 304 for an unchanged card) rather than reusing
   * a card the door's max-age still allows, since a door restarted on the same address names a new session.
   */
  async getCard(options: CallOptions = {}): Promise<AgentCard> {
    return this.#withRetries(options, true, async () => {
      const init: RequestInit = { method: 'GET', headers: this.#headers(false), signal: options.signal, cache: 'no-cache' };
      const answer = await this.#send('GET agent card', `${this.address}${AGENT_CARD_PATH}`, init);
      let body: unknown;
      try {
        body = JSON.parse(answer.text);
      } catch (error) {
        if (answer.status !== 200) throw httpRefusal(answer, null);
        throw new InvalidResponseError('not-json', 'GET agent card: the answer is not JSON', { status: answer.status, body: answer.text, cause: error });
      }
      if (answer.status !== 200) throw httpRefusal(answer, body);
      return expectObject(body, 'GET agent card', 'an AgentCard') as unknown as AgentCard;
    });
  }

  // --- streams --------------------------------------------------------------------------------------------

  /**
   * SendStreamingMessage: sends the message and streams its task until the task ends or asks for input. A drop
   * is resumed with SubscribeToTask on the task (the message is never sent twice).
   */
  sendStreamingMessage(request: SendMessageRequest, options: StreamOptions = {}): MurmurStream {
    const taskId = request.message?.taskId ? request.message.taskId : null;
    return this.#stream(
      { method: METHOD.SendStreamingMessage, call: 'sendStreamingMessage', params: request, taskId, murmurFrames: options.murmurFrames ?? false },
      options,
    );
  }

  /** SubscribeToTask: the rest of a live task, through input requests, until it ends. */
  subscribeToTask(id: string, options: StreamOptions = {}): MurmurStream {
    return this.#stream(
      { method: METHOD.SubscribeToTask, call: 'subscribeToTask', params: { id }, taskId: id, murmurFrames: options.murmurFrames ?? false },
      options,
    );
  }

  /** murmur.WatchSession: every task's events and murmur's frames, until the capsule closes (capsule-closed). */
  watchSession(options: StreamOptions = {}): MurmurStream {
    return this.#stream({ method: METHOD.WatchSession, call: 'watchSession', params: {}, taskId: null, murmurFrames: true }, options);
  }

  // --- plumbing -------------------------------------------------------------------------------------------

  #stream(plan: StreamPlan, options: StreamOptions): MurmurStream {
    const merged: StreamOptions = {
      ...options,
      reconnect: options.reconnect ?? this.#streamDefaults.reconnect,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? this.#streamDefaults.heartbeatTimeoutMs,
    };
    const deps: StreamDeps = {
      open: (method, params, headers, signal) => this.#openStream(method, params, headers, signal),
      getTask: (id, signal) => this.getTask(id, { signal }),
    };
    return new MurmurStream(plan, (signal) => runStream(deps, plan, merged, signal), options.signal);
  }

  async #openStream(method: StreamMethod, params: object, headers: Record<string, string>, signal: AbortSignal) {
    const requestId = this.#nextId++;
    const open = await this.#transport({
      url: `${this.address}/`,
      headers: this.#headers(true, { accept: 'text/event-stream', ...headers }),
      body: JSON.stringify({ jsonrpc: '2.0', id: requestId, method, params }),
      signal,
      fetch: this.#fetch,
      maxEventSize: this.#maxEventSize,
    });
    return { requestId, open };
  }

  /** A request's headers: the client's own (`own` last: a stream's), and `options.headers` where none of them has the name. */
  #headers(withBody: boolean, own: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { [A2A_VERSION_HEADER]: A2A_VERSION };
    // A GET has no body, so no content-type; every JSON-RPC POST has both.
    if (withBody) headers['content-type'] = 'application/json';
    else headers.accept = 'application/json';
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    Object.assign(headers, own);
    const taken = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    for (const [name, value] of this.#extraHeaders) if (!taken.has(name)) headers[name] = value;
    return headers;
  }

  async #rpc(method: MethodName, params: object | undefined, options: CallOptions, idempotent: boolean): Promise<unknown> {
    return this.#withRetries(options, idempotent, async () => {
      const id = this.#nextId++;
      const envelope = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      const answer = await this.#send(method, `${this.address}/`, {
        method: 'POST',
        headers: this.#headers(true),
        body: JSON.stringify(envelope),
        signal: options.signal,
      });
      return readRpcAnswer(answer, id, method);
    });
  }

  async #withRetries<T>(options: CallOptions, idempotent: boolean, attempt: () => Promise<T>): Promise<T> {
    const maxRetries = options.maxRetries ?? this.#retry.maxRetries;
    const policy: BackoffPolicy = this.#retry;
    for (let retry = 0; ; retry++) {
      try {
        return await attempt();
      } catch (error) {
        if (retry >= maxRetries || options.signal?.aborted || !shouldRetry(error, idempotent)) throw error;
        await sleep(retryDelay(retry + 1, policy, error), options.signal);
      }
    }
  }

  async #send(what: string, url: string, init: RequestInit): Promise<Answer> {
    let response: Response;
    let text: string | null;
    try {
      response = await this.#fetch(url, init);
      text = await boundedText(response, this.#maxResponseSize);
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason;
      const detail = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}` : String(error);
      throw new ConnectionError(`${what}: no answer from ${url}: ${detail}`, { cause: error });
    }
    if (text === null)
      throw new InvalidResponseError(
        'too-large',
        `${what}: the answer from ${url} is larger than the client's maxResponseSize (${this.#maxResponseSize} bytes)`,
        {
          status: response.status,
        },
      );
    return { status: response.status, headers: response.headers, text };
  }
}

/**
 * A response's body as text, or null once it passes `max` bytes (by its Content-Length before a byte is read, else as
 * it arrives): the rest is not read, and the connection is let go. An answer is whatever the other side sends, so the
 * client never holds more of it than it would accept.
 */
async function boundedText(response: Response, max: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (response.body === null) return '';
  if (declared > max) {
    await response.body.cancel().catch(() => undefined);
    return null;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

function expectTask(result: unknown, method: string): Task {
  const body = expectObject(result, method, 'a Task');
  if (typeof body.id !== 'string' || typeof body.status !== 'object' || body.status === null) {
    throw new InvalidResponseError('unexpected-result', `${method}: the result is not a Task (no id or status)`);
  }
  return body as unknown as Task;
}

function taskOf(response: SendMessageResponse, call: string): Task {
  if ('task' in response) return expectTask(response.task, call);
  throw new InvalidResponseError('unexpected-result', `${call}: the door answered a message, not a task`);
}
