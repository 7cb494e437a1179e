/**
 * Streams as single-use async iterables (STYLE 9, after openai-node's `core/streaming.ts`): `for await` drives the
 * request, `break` aborts it, a second iteration throws. Behind the iterator, one loop reconnects with
 * Last-Event-ID, de-duplicates replays and watches the heartbeat (docs/streaming.md; seed 001, "Replay").
 */
import {
  A2A_EXTENSIONS_HEADER,
  endsTaskStream,
  LAST_EVENT_ID_HEADER,
  METHOD,
  STREAM_EXTENSION_URI,
  type Task,
  type TaskState,
  taskStreamEndOptions,
} from '@murmur/protocol';
import { ConnectionError, InvalidResponseError, isA2AError, isMurmurError, StreamError } from './errors.js';
import type { ConnectionEvent, ConnectionReason, MurmurStreamEvent, StreamDataEvent } from './events.js';
import { readRpcAnswer } from './internal/answer.js';
import { type BackoffPolicy, retryDelay, shouldRetry, sleep } from './internal/retry.js';
import { ConsumerBehindError } from './internal/sse-fetch-event-source.js';
import { EventTooLargeError, type SseItem, type SseOpen } from './internal/sse-types.js';
import { dedupeKey, Deduper, readStreamEvent } from './internal/stream-events.js';

/** Reconnect settings for a stream. */
export interface ReconnectOptions {
  /** Consecutive failed attempts before the stream gives up with StreamError('retries-exhausted'). @default 8 */
  maxRetries?: number;
  /** The wait before the first retry; doubled each time. @default 500 @unit ms */
  initialDelayMs?: number;
  /** The longest wait between retries. @default 15000 @unit ms */
  maxDelayMs?: number;
  /**
   * A connection that stayed up this long counts as healthy (resetting the failure count) even if it delivered
   * nothing new; one that delivers something new — not a connection-ack, a gap or lagged frame, a resumed `task`
   * snapshot or a replayed repeat — counts as healthy at once. @default 5000 @unit ms
   */
  healthyAfterMs?: number;
}

export interface StreamOptions {
  /** Aborting it ends the stream: the pending `next()` rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Ask for murmur's frames (text, thinking, tool calls, artifacts, gap, lagged) by sending
   * `A2A-Extensions: <stream URI>`. SendStreamingMessage and SubscribeToTask only: WatchSession always has them.
   * @default false
   */
  murmurFrames?: boolean;
  /** Resume after this SSE id (sent as Last-Event-ID on the first request), e.g. a StreamError's `lastEventId`. */
  lastEventId?: string;
  /** Reconnect after a dropped connection; `false` turns it off (a drop then throws a StreamError). @default {} (the defaults below) */
  reconnect?: ReconnectOptions | false;
  /**
   * Treat the connection as dead when no bytes (event or `:heartbeat`) arrive for this long while the client waits
   * for the next event. The door writes a heartbeat every 15 s; 0 turns the watchdog off. @default 45000 @unit ms
   */
  heartbeatTimeoutMs?: number;
}

const DEFAULT_RECONNECT: Required<ReconnectOptions> = { maxRetries: 8, initialDelayMs: 500, maxDelayMs: 15_000, healthyAfterMs: 5_000 };
/** 3 × the door's 15 s heartbeat interval (seed 001, "Heartbeat"). */
const DEFAULT_HEARTBEAT_TIMEOUT_MS = 45_000;

export type StreamMethod = typeof METHOD.SendStreamingMessage | typeof METHOD.SubscribeToTask | typeof METHOD.WatchSession;

/** What one stream asks for. */
export interface StreamPlan {
  method: StreamMethod;
  /** The client method that made the stream, for error hints. */
  call: string;
  params: object;
  /** The task followed, when known before the first event (SubscribeToTask; a SendStreamingMessage reply). */
  taskId: string | null;
  murmurFrames: boolean;
}

/** What the stream loop needs from the client. */
export interface StreamDeps {
  open(method: StreamMethod, params: object, headers: Record<string, string>, signal: AbortSignal): Promise<{ requestId: number; open: SseOpen }>;
  getTask(id: string, signal: AbortSignal): Promise<Task>;
  random?: () => number;
}

/** A single-use async iterable of a stream's events. The request is sent when iteration starts. */
export class MurmurStream implements AsyncIterable<MurmurStreamEvent> {
  readonly method: StreamMethod;
  #iterated = false;
  readonly #abort = new AbortController();
  readonly #run: (signal: AbortSignal) => AsyncGenerator<MurmurStreamEvent, void, undefined>;
  readonly #call: string;
  readonly #signal: AbortSignal | undefined;

  /** @internal Streams are made by `MurmurClient`'s stream methods. */
  constructor(plan: StreamPlan, run: (signal: AbortSignal) => AsyncGenerator<MurmurStreamEvent, void, undefined>, signal?: AbortSignal) {
    this.method = plan.method;
    this.#call = plan.call;
    this.#run = run;
    this.#signal = signal;
  }

  [Symbol.asyncIterator](): AsyncIterator<MurmurStreamEvent, void, undefined> {
    if (this.#iterated) {
      throw new StreamError(
        'already-iterated',
        `This ${this.method} stream has already been iterated. Streams are single-use: call client.${this.#call}() again for a new one, passing lastEventId to resume where this one stopped.`,
        { method: this.method },
      );
    }
    this.#iterated = true;
    return this.#iterate();
  }

  /** Ends the stream from outside the loop: the pending `next()` rejects with `reason`. */
  abort(reason?: unknown): void {
    this.#abort.abort(reason);
  }

  async *#iterate(): AsyncGenerator<MurmurStreamEvent, void, undefined> {
    // The caller's signal is listened to only while the stream runs, so a long-lived signal shared by many
    // streams does not collect listeners.
    const external = this.#signal;
    const forward = () => this.#abort.abort(external?.reason);
    if (external?.aborted) forward();
    else external?.addEventListener('abort', forward, { once: true });
    try {
      yield* this.#run(this.#abort.signal);
    } finally {
      external?.removeEventListener('abort', forward);
    }
  }
}

/** Arms a timer while the client waits for bytes; it fires `onTimeout` when none come in time. */
class Watchdog {
  fired = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: () => void,
  ) {}

  async guard<T>(pending: Promise<T>): Promise<T> {
    if (!(this.timeoutMs > 0 && Number.isFinite(this.timeoutMs))) return pending;
    const timer = setTimeout(() => {
      this.fired = true;
      this.onTimeout();
    }, this.timeoutMs);
    try {
      return await pending;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Whether `event` is the last one its stream sends (docs/streaming.md, "What each stream writes, in order"). */
function isNaturalEnd(plan: Pick<StreamPlan, 'method'>, followedTaskId: string | null, event: StreamDataEvent): boolean {
  if (plan.method === METHOD.WatchSession) return event.kind === 'frame' && event.frame.frame === 'capsule-closed';
  if (event.taskId !== followedTaskId) return false;
  // Only the task and its plain statuses decide: a carrier holds a state too, but the door ends on the status.
  let state: TaskState;
  if (event.kind === 'task') state = event.response.task.status.state;
  else if (event.kind === 'status') state = event.response.statusUpdate.status.state;
  else return false;
  // SendStreamingMessage also ends when its task pauses for input: the reply is a new message with its own stream.
  return endsTaskStream(state, taskStreamEndOptions(plan.method));
}

/**
 * Whether a delivered event shows the connection working: something the stream had not delivered before. Not a
 * connection-ack (every WatchSession connection opens with one), not a gap or lagged frame (about the connection,
 * not the session), not a resumed task snapshot (every task-stream resume opens with one). Replayed repeats never
 * get this far: de-duplication drops them first.
 */
function isProgress(event: StreamDataEvent): boolean {
  if (event.kind === 'task') return !event.resumed;
  if (event.kind !== 'frame') return true;
  const name = event.frame.frame;
  return name !== 'connection-ack' && name !== 'gap' && name !== 'lagged';
}

interface Failure {
  reason: Exclude<ConnectionReason, 'natural-end'>;
  error: unknown;
}

/** The loop behind every MurmurStream: connect, read, and on a drop reconnect with Last-Event-ID. */
export async function* runStream(
  deps: StreamDeps,
  plan: StreamPlan,
  options: StreamOptions,
  signal: AbortSignal,
): AsyncGenerator<MurmurStreamEvent, void, undefined> {
  const reconnect = options.reconnect === false ? null : { ...DEFAULT_RECONNECT, ...options.reconnect };
  const policy: BackoffPolicy & { healthyAfterMs: number } = reconnect ?? DEFAULT_RECONNECT;
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
  const dedupe = new Deduper();
  const method = plan.method;
  let lastEventId: string | null = options.lastEventId ?? null;
  let followed = plan.taskId;
  let connections = 0;
  let failures = 0;
  let failure: Failure | null = null;

  const connectionEvent = (state: ConnectionEvent['state'], extra: Partial<ConnectionEvent> = {}): ConnectionEvent => ({
    kind: 'connection',
    state,
    attempt: failures,
    lastEventId,
    ...extra,
  });
  const lost = (reason: StreamError['reason'], message: string, cause: unknown) =>
    new StreamError(reason, `${method}: ${message}`, { method, lastEventId, cause });

  for (;;) {
    if (failure !== null) {
      if (reconnect === null) {
        yield connectionEvent('lost', { reason: failure.reason, error: failure.error });
        throw failure.reason === 'heartbeat-timeout'
          ? lost('heartbeat-timeout', `no bytes for ${heartbeatTimeoutMs} ms, and reconnect is off`, failure.error)
          : lost('connection-lost', `the connection dropped before the stream's end (${failure.reason}), and reconnect is off`, failure.error);
      }
      if (method === METHOD.SendStreamingMessage && followed === null) {
        yield connectionEvent('lost', { reason: failure.reason, error: failure.error });
        throw lost(
          'cannot-resume',
          'the connection dropped before the task event, so the task id is unknown and the message is not sent again; find the task with listTasks({ contextId })',
          failure.error,
        );
      }
      failures += 1;
      if (failures > reconnect.maxRetries) {
        yield connectionEvent('lost', { reason: failure.reason, error: failure.error, attempt: failures - 1 });
        throw lost('retries-exhausted', `gave up after ${reconnect.maxRetries} reconnect attempts`, failure.error);
      }
      const delayMs = retryDelay(failures, policy, failure.error, deps.random);
      yield connectionEvent('reconnecting', { reason: failure.reason, delayMs, error: failure.error });
      await sleep(delayMs, signal);
    }

    // A dropped SendStreamingMessage is resumed with SubscribeToTask on its task, never by sending the message again.
    const isReconnect = connections > 0;
    const target: StreamMethod = isReconnect && method === METHOD.SendStreamingMessage ? METHOD.SubscribeToTask : method;
    const params = target === plan.method ? plan.params : { id: followed };
    const headers: Record<string, string> = {};
    if (plan.murmurFrames && target !== METHOD.WatchSession) headers[A2A_EXTENSIONS_HEADER] = STREAM_EXTENSION_URI;
    if (lastEventId !== null) headers[LAST_EVENT_ID_HEADER] = lastEventId;

    const connection = new AbortController();
    const forwardAbort = () => connection.abort(signal.reason);
    signal.addEventListener('abort', forwardAbort, { once: true });
    let opened: { requestId: number; open: SseOpen };
    // The watchdog covers the wait for the answer's headers too: a connection that stalls before them would hang.
    let openTimedOut = false;
    const openTimer =
      heartbeatTimeoutMs > 0
        ? setTimeout(() => {
            openTimedOut = true;
            connection.abort(new Error('no answer'));
          }, heartbeatTimeoutMs)
        : null;
    try {
      signal.throwIfAborted();
      opened = await deps.open(target, params, headers, connection.signal);
    } catch (error) {
      signal.removeEventListener('abort', forwardAbort);
      if (signal.aborted) throw signal.reason;
      const normalized = openTimedOut
        ? new ConnectionError(`${target}: no answer within ${heartbeatTimeoutMs} ms`, { cause: error })
        : isMurmurError(error)
          ? error
          : new ConnectionError(`${target}: the request failed: ${describe(error)}`, { cause: error });
      if (!isReconnect) throw normalized;
      failure = { reason: openTimedOut ? 'heartbeat-timeout' : 'network-error', error: normalized };
      continue;
    } finally {
      if (openTimer !== null) clearTimeout(openTimer);
    }

    if (opened.open.type === 'answer') {
      signal.removeEventListener('abort', forwardAbort);
      const refusal = answerError(opened.open, opened.requestId, target);
      if (!isReconnect) throw refusal;
      // The task ended while the client was away: SubscribeToTask answers -32004 naming its state. Its final
      // state is what the stream would have ended with, so read it and end there.
      if (target === METHOD.SubscribeToTask && followed !== null && isA2AError(refusal, 'UnsupportedOperation') && refusal.metadata.state) {
        const task = await deps.getTask(followed, signal);
        yield { kind: 'task', id: null, taskId: task.id, response: { task }, frame: null, resumed: true };
        yield connectionEvent('closed', { reason: 'natural-end' });
        return;
      }
      if (shouldRetry(refusal, true)) {
        failure = { reason: 'network-error', error: refusal };
        continue;
      }
      yield connectionEvent('lost', { reason: 'network-error', error: refusal });
      throw lost('reconnect-refused', `the door refused the reconnect: ${refusal.message}`, refusal);
    }

    connections += 1;
    failure = null;
    const openedAt = Date.now();
    let healthy = false;
    const { requestId } = opened;
    const items = opened.open.items;
    const watchdog = new Watchdog(heartbeatTimeoutMs, () => connection.abort(new Error('heartbeat timeout')));
    try {
      yield connectionEvent('open', { attempt: connections - 1 });
      for (;;) {
        let next: IteratorResult<SseItem, void>;
        try {
          next = await watchdog.guard(items.next());
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          if (watchdog.fired) failure = { reason: 'heartbeat-timeout', error: new ConnectionError(`${target}: no bytes for ${heartbeatTimeoutMs} ms`) };
          else if (error instanceof ConsumerBehindError) failure = { reason: 'consumer-behind', error };
          else if (error instanceof EventTooLargeError) {
            yield connectionEvent('lost', { reason: 'event-too-large', error });
            throw lost('event-too-large', `${error.message} (the client's maxEventSize); the events before it were delivered`, error);
          } else failure = { reason: 'network-error', error: new ConnectionError(`${target}: the stream failed: ${describe(error)}`, { cause: error }) };
          break;
        }
        if (next.done) {
          failure = { reason: 'ended-early', error: null };
          break;
        }
        const item = next.value;
        if (item.type !== 'event') continue;
        const read = readStreamEvent(item.data, item.id, requestId, target, lastEventId);
        if (item.id !== null) lastEventId = item.id;
        if (read === null) continue;
        const { event } = read;
        const key = dedupeKey(event);
        if (key !== null && dedupe.isRepeat(key, read.resultJson, connections)) continue;
        if (event.kind === 'task' && isReconnect) event.resumed = true;
        if (!healthy && isProgress(event)) {
          healthy = true;
          failures = 0;
        }
        if (followed === null && event.kind === 'task') followed = event.taskId;
        yield event;
        if (isNaturalEnd(plan, followed, event)) {
          yield connectionEvent('closed', { reason: 'natural-end' });
          return;
        }
      }
    } finally {
      // A connection that stayed up long enough was healthy, even if it had nothing new to say.
      if (!healthy && failure !== null && Date.now() - openedAt >= policy.healthyAfterMs) failures = 0;
      signal.removeEventListener('abort', forwardAbort);
      connection.abort();
      items.return?.()?.catch(() => {});
    }
  }
}

function answerError(answer: Extract<SseOpen, { type: 'answer' }>, requestId: number, method: string): Error {
  try {
    readRpcAnswer(answer, requestId, method);
  } catch (error) {
    return error as Error;
  }
  return new InvalidResponseError('unexpected-result', `${method}: the door answered a JSON result where an event stream was expected`, {
    status: answer.status,
    body: answer.text,
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
