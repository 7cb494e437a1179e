/**
 * A real SSE client for the streaming tests (docs/streaming.md): `fetch` response bodies fed to eventsource-parser,
 * collecting every event's id and parsed data line, every comment (heartbeats), and optionally the raw body text.
 * The reader can be paused (it stops pulling the body, so the socket backs up) and aborted (the client disconnects).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { type DoorProcess, runDoor } from './door-process.js';
import { JSON_HEADERS } from './rpc.js';

export const STREAM_URI = 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1';
export const DOOR_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';
export const INPUT_WAIT_START = '9223372036854775807';
export const QUEUED_CANCEL_START = '2305843009213693951';

export interface SseEvent {
  /** The `id:` line's value, or undefined when the event carried none. */
  id: string | undefined;
  /** The event type from an `event:` line; the door never writes one. */
  event: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  data: any;
  /** When the event was parsed (Date.now()). */
  at: number;
}

export interface SseComment {
  text: string;
  at: number;
}

let nextRpcId = 1;
let nextMessage = 1;

export function streamMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `msg-sse-${process.pid}-${nextMessage++}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: SseComment[] = [];
  readonly openedAt = Date.now();
  /** The whole body as received, when the stream was opened with keepRaw. */
  raw = '';
  ended = false;
  endedAt = 0;
  /** Set when the body ended with an error other than our own abort. */
  error: unknown = null;
  readonly done: Promise<void>;
  private paused: { promise: Promise<void>; resume: () => void } | null = null;
  private readonly listeners = new Set<() => void>();
  private aborted = false;

  constructor(
    readonly response: Response,
    private readonly controller: AbortController,
    options: { keepRaw?: boolean; paused?: boolean } = {},
  ) {
    if (options.paused) this.pause();
    const parser = createParser({
      onEvent: (message) => {
        let data: unknown;
        try {
          data = JSON.parse(message.data);
        } catch {
          data = { unparsable: message.data };
        }
        this.events.push({ id: message.id, event: message.event, data, at: Date.now() });
        this.notify();
      },
      onComment: (text) => {
        this.comments.push({ text, at: Date.now() });
        this.notify();
      },
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    this.done = (async () => {
      try {
        for (;;) {
          if (this.paused) await this.paused.promise;
          const { done, value } = await reader.read();
          if (done) break;
          const text = decoder.decode(value, { stream: true });
          if (options.keepRaw) this.raw += text;
          parser.feed(text);
        }
      } catch (error) {
        if (!this.aborted) this.error = error;
      } finally {
        this.ended = true;
        this.endedAt = Date.now();
        this.notify();
      }
    })();
  }

  get headers(): Headers {
    return this.response.headers;
  }

  /** Stops pulling the body: the client's buffers fill and the door's socket backs up. */
  pause(): void {
    if (this.paused) return;
    let resume!: () => void;
    const promise = new Promise<void>((r) => {
      resume = r;
    });
    this.paused = { promise, resume };
  }

  resume(): void {
    const paused = this.paused;
    this.paused = null;
    paused?.resume();
  }

  /** The client disconnects. */
  abort(): void {
    this.aborted = true;
    this.resume();
    this.controller.abort();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves once `check` returns a value (re-checked after every event, comment and the end). */
  until<T>(check: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    const first = check();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (value !== undefined) {
          finish();
          resolve(value);
        } else if (this.ended) {
          finish();
          reject(new Error(`stream ended before ${what}; events:\n${summarize(this.events)}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out waiting for ${what}; ${this.events.length} events:\n${summarize(this.events.slice(-20))}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
    });
  }

  /** The first event (from index `from`) matching `predicate`. */
  waitForEvent(predicate: (event: SseEvent) => boolean, what: string, timeoutMs?: number, from = 0): Promise<SseEvent> {
    return this.until(() => this.events.slice(from).find(predicate), what, timeoutMs);
  }

  waitForCount(count: number, timeoutMs?: number): Promise<SseEvent[]> {
    return this.until(() => (this.events.length >= count ? this.events : undefined), `${count} events`, timeoutMs);
  }

  /** Resolves when the door ends the body; rejects after the timeout. */
  async waitForEnd(timeoutMs = 10_000): Promise<SseEvent[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`stream did not end within ${timeoutMs} ms; events:\n${summarize(this.events.slice(-20))}`)), timeoutMs);
    });
    try {
      await Promise.race([this.done, timeout]);
    } finally {
      clearTimeout(timer);
    }
    return this.events;
  }
}

export interface OpenOptions {
  /** The JSON-RPC id (default: a fresh integer). */
  id?: unknown;
  /** Extra or overriding request headers. */
  headers?: Record<string, string>;
  lastEventId?: string;
  /** Sends A2A-Extensions naming the stream extension. */
  activate?: boolean;
  keepRaw?: boolean;
  /** Opens the reader paused: nothing is read until resume(). */
  paused?: boolean;
}

export type StreamAnswer =
  | { kind: 'stream'; status: number; headers: Headers; stream: SseReader }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  | { kind: 'json'; status: number; headers: Headers; text: string; json: any };

/** POSTs one JSON-RPC request and reads the answer as a stream when it is text/event-stream, else as one JSON body. */
export async function openRpc(url: string, method: string, params: unknown, options: OpenOptions = {}): Promise<StreamAnswer> {
  const controller = new AbortController();
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (options.activate) headers['A2A-Extensions'] = STREAM_URI;
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
  Object.assign(headers, options.headers ?? {});
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: options.id ?? nextRpcId++, method };
  if (params !== undefined) body.params = params;
  const response = await fetch(`${url}/`, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { kind: 'stream', status: response.status, headers: response.headers, stream: new SseReader(response, controller, options) };
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { kind: 'json', status: response.status, headers: response.headers, text, json };
}

/** Opens a stream, failing when the door answers with a JSON body instead. */
export async function openStream(url: string, method: string, params: unknown, options: OpenOptions = {}): Promise<SseReader> {
  const answer = await openRpc(url, method, params, options);
  if (answer.kind !== 'stream') throw new Error(`${method} answered JSON instead of a stream: ${answer.text}`);
  return answer.stream;
}

export const watchSession = (url: string, options: OpenOptions = {}) => openStream(url, 'murmur.WatchSession', {}, options);

export const sendStreaming = (url: string, text: string, options: OpenOptions & { message?: Record<string, unknown>; configuration?: unknown } = {}) =>
  openRpc(
    url,
    'SendStreamingMessage',
    { message: streamMessage(text, options.message), ...(options.configuration !== undefined ? { configuration: options.configuration } : {}) },
    options,
  );

export async function sendStreamingStream(url: string, text: string, options: OpenOptions & { message?: Record<string, unknown> } = {}): Promise<SseReader> {
  const answer = await sendStreaming(url, text, options);
  if (answer.kind !== 'stream') throw new Error(`SendStreamingMessage answered JSON instead of a stream: ${answer.text}`);
  return answer.stream;
}

export const subscribe = (url: string, id: unknown, options: OpenOptions = {}) => openRpc(url, 'SubscribeToTask', id === undefined ? {} : { id }, options);

/** The murmur frame an event carries (on a carrier statusUpdate or a message), or undefined. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
export function frameOf(event: SseEvent): any {
  const result = event.data?.result;
  return result?.statusUpdate?.metadata?.[STREAM_URI] ?? result?.message?.metadata?.[STREAM_URI];
}

/** What an event is: 'task', 'status', 'artifact' (A2A events), or 'frame:<name>' for a murmur frame, 'message' otherwise. */
export function kindOf(event: SseEvent): string {
  const frame = frameOf(event);
  if (frame) return `frame:${frame.frame}`;
  const result = event.data?.result ?? {};
  if ('task' in result) return 'task';
  if ('statusUpdate' in result) return 'status';
  if ('artifactUpdate' in result) return 'artifact';
  if ('message' in result) return 'message';
  return 'unknown';
}

/** The task id an event belongs to, if any. */
export function taskIdOf(event: SseEvent): string | undefined {
  const result = event.data?.result ?? {};
  return result.task?.id ?? result.statusUpdate?.taskId ?? result.artifactUpdate?.taskId;
}

/** The state a task or status event reports. */
export function stateOf(event: SseEvent): string | undefined {
  const result = event.data?.result ?? {};
  return result.task?.status?.state ?? result.statusUpdate?.status?.state;
}

/** The status message's first text of a status event (progress statuses and terminal statuses). */
export function statusTextOf(event: SseEvent): string | undefined {
  return event.data?.result?.statusUpdate?.status?.message?.parts?.[0]?.text;
}

/** A plain (non-frame) status event in the given state, optionally with the given message text. */
export function isStatus(event: SseEvent, state: string, text?: string): boolean {
  return kindOf(event) === 'status' && stateOf(event) === state && (text === undefined || statusTextOf(event) === text);
}

const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

export function isTerminalStatus(event: SseEvent): boolean {
  return kindOf(event) === 'status' && TERMINAL.has(stateOf(event) ?? '');
}

/** One line per event, for failure messages. */
export function summarize(events: SseEvent[]): string {
  return events
    .map((e) => {
      const frame = frameOf(e);
      const detail = frame ? JSON.stringify(frame).slice(0, 80) : (statusTextOf(e) ?? '');
      return `  id=${e.id ?? '-'} ${kindOf(e)} ${taskIdOf(e)?.slice(-6) ?? ''} ${stateOf(e) ?? ''} ${detail}`;
    })
    .join('\n');
}

/** Runs a door with extra environment for its process only (spawn reads process.env synchronously in runDoor). */
export function runDoorWithEnv(capsuleDir: string, env: Record<string, string>, args: string[] = []): Promise<DoorProcess> {
  const saved: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  try {
    return runDoor(capsuleDir, args);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

export interface DoorLogEntry {
  ts: string;
  level: string;
  message: string;
  [key: string]: unknown;
}

/** Every entry of <recordsDir>/logs/door.log. */
function doorLog(recordsDir: string): DoorLogEntry[] {
  try {
    return readFileSync(path.join(recordsDir, 'logs', 'door.log'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as DoorLogEntry);
  } catch {
    return [];
  }
}

/** The stream open/close entries of door.log. */
export function streamLog(recordsDir: string): DoorLogEntry[] {
  return doorLog(recordsDir).filter((e) => e.message === 'stream opened' || e.message === 'stream closed');
}

/** The open_streams count of the latest stream entry in door.log (0 when there is none). */
export function openStreams(recordsDir: string): number {
  const last = streamLog(recordsDir).at(-1);
  return last ? Number(last.open_streams) : 0;
}

export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const UTC_MS_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MESSAGE_ID_PATTERN = /^msg_[0-9a-f]{32}$/;

/** Every data line is a complete JSON-RPC response to the request, whose result holds exactly one StreamResponse member. */
export function assertEnvelope(event: SseEvent, rpcId: unknown): void {
  if (event.data?.jsonrpc !== '2.0' || JSON.stringify(event.data.id) !== JSON.stringify(rpcId)) {
    throw new Error(`not a JSON-RPC response to ${JSON.stringify(rpcId)}: ${JSON.stringify(event.data).slice(0, 300)}`);
  }
  const keys = Object.keys(event.data).sort().join(',');
  if (keys !== 'id,jsonrpc,result') throw new Error(`envelope keys ${keys}`);
  const members = Object.keys(event.data.result);
  if (members.length !== 1 || !['task', 'message', 'statusUpdate', 'artifactUpdate'].includes(members[0])) {
    throw new Error(`result is not one StreamResponse member: ${members.join(',')}`);
  }
}

/** A progress status: a fresh msg_… ROLE_AGENT message with the task's ids and one text part, and a write timestamp. */
export function progressStatusProblem(event: SseEvent, taskId: string, contextId: string, state: string, text: string): string | null {
  const update = event.data?.result?.statusUpdate;
  if (!update) return 'not a statusUpdate';
  if (update.taskId !== taskId || update.contextId !== contextId) return 'wrong task or context';
  if (update.metadata !== undefined) return 'has metadata';
  const { status } = update;
  if (status.state !== state) return `state ${status.state}`;
  if (!UTC_MS_PATTERN.test(status.timestamp ?? '')) return `timestamp ${status.timestamp}`;
  const m = status.message;
  if (!m || !MESSAGE_ID_PATTERN.test(m.messageId ?? '')) return `messageId ${m?.messageId}`;
  const expected = JSON.stringify({ contextId, taskId, role: 'ROLE_AGENT', parts: [{ text, mediaType: 'text/plain' }] });
  const actual = JSON.stringify({ contextId: m.contextId, taskId: m.taskId, role: m.role, parts: m.parts });
  if (expected !== actual || Object.keys(m).length !== 5) return `message ${JSON.stringify(m)}`;
  return null;
}

/** A carrier: a statusUpdate of the task in `state`, with a timestamp, no message, and only the frame in its metadata. */
export function carrierProblem(event: SseEvent, taskId: string, contextId: string, state: string): string | null {
  const update = event.data?.result?.statusUpdate;
  if (!update) return 'not a statusUpdate';
  if (update.taskId !== taskId || update.contextId !== contextId) return 'wrong task or context';
  if (Object.keys(update.status).sort().join(',') !== 'state,timestamp') return `status keys ${Object.keys(update.status)}`;
  if (update.status.state !== state) return `state ${update.status.state}`;
  if (!UTC_MS_PATTERN.test(update.status.timestamp)) return `timestamp ${update.status.timestamp}`;
  if (Object.keys(update.metadata ?? {}).join(',') !== STREAM_URI) return `metadata keys ${Object.keys(update.metadata ?? {})}`;
  return null;
}

/** A frame with no task: a ROLE_AGENT message with a fresh id and one text part naming the frame. */
export function messageFrameProblem(event: SseEvent, frame: string): string | null {
  const message = event.data?.result?.message;
  if (!message) return 'not a message';
  if (event.id !== undefined) return `has id ${event.id}`;
  if (!MESSAGE_ID_PATTERN.test(message.messageId ?? '')) return `messageId ${message.messageId}`;
  if (message.role !== 'ROLE_AGENT') return `role ${message.role}`;
  if (JSON.stringify(message.parts) !== JSON.stringify([{ mediaType: 'text/plain', text: frame }])) return `parts ${JSON.stringify(message.parts)}`;
  if (Object.keys(message).sort().join(',') !== 'messageId,metadata,parts,role') return `keys ${Object.keys(message)}`;
  if (Object.keys(message.metadata).join(',') !== STREAM_URI) return `metadata keys ${Object.keys(message.metadata)}`;
  if (message.metadata[STREAM_URI].frame !== frame) return `frame ${message.metadata[STREAM_URI].frame}`;
  return null;
}

/** (task id, kind, id): what a client de-duplicates on (docs/streaming.md, "Event ids"). */
export function dedupKey(event: SseEvent): string {
  const kind = kindOf(event);
  const name = kind === 'artifact' ? 'artifact-update' : kind.startsWith('frame:') ? kind.slice(6) : kind;
  return `${taskIdOf(event) ?? '-'}|${name}|${event.id ?? '-'}`;
}

/**
 * What a watcher saw of one task once it ended, each event a label and its id: a status as `STATE:message` (state
 * without TASK_STATE_), a tool call's frames as `started:<tool>` and `artifact:<tool>` (`:error` for an error), any
 * other frame by its name, an artifactUpdate as `update:<artifactId>`.
 */
export async function taskEventLabels(watcher: SseReader, taskId: string): Promise<[string, string | null][]> {
  await watcher.waitForEvent(
    (e) => taskIdOf(e) === taskId && kindOf(e) === 'status' && /COMPLETED|FAILED|CANCELED/.test(e.data.result.statusUpdate.status.state),
    'the task’s end',
  );
  return watcher.events
    .filter((e) => taskIdOf(e) === taskId)
    .map((e) => {
      const frame = frameOf(e);
      const label = frame
        ? frame.frame === 'artifact'
          ? `artifact:${frame.artifact.toolName}${frame.artifact.isError ? ':error' : ''}`
          : frame.frame === 'tool-call-started'
            ? `started:${frame.toolName}`
            : frame.frame
        : kindOf(e) === 'status'
          ? `${e.data.result.statusUpdate.status.state.replace('TASK_STATE_', '')}${statusTextOf(e) ? `:${statusTextOf(e)}` : ''}`
          : `update:${e.data.result.artifactUpdate?.artifact?.artifactId}`;
      return [label, e.id ?? null] as [string, string | null];
    });
}
