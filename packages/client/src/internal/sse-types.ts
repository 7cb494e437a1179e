/**
 * What the SSE seam's two transports and its selector share: the request, the items and the opened answer. Kept
 * apart from sse.ts (which imports the transports) so that no transport imports the module that imports it.
 */

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type SseTransportName = 'fetch' | 'fetch-event-source';

/** One POST whose answer may be an event stream. */
export interface SseRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  fetch: FetchLike;
  /** The most characters one event's data may hold (and one unfinished line may buffer) before the stream fails. */
  maxEventSize: number;
}

export type SseItem =
  /** An event with data. `id` is its `id:` field, or null when it had none (an SSE id is per event here, never inherited). */
  | { type: 'event'; id: string | null; data: string }
  /** A comment such as `:heartbeat` (the fetch-event-source transport cannot see its text: ''). */
  | { type: 'comment'; text: string }
  /** Bytes arrived that completed nothing yet; only the fetch transport reports them. They feed the watchdog. */
  | { type: 'bytes' };

export type SseOpen =
  /** A 200 text/event-stream answer: its items, ending when the body ends. Calling `return()` closes the connection. */
  | { type: 'stream'; status: number; headers: Headers; items: AsyncIterator<SseItem, void> }
  /** Any other answer, its body read as text: a JSON-RPC refusal, an HTTP refusal, something unexpected. */
  | { type: 'answer'; status: number; headers: Headers; text: string };

export type SseTransport = (request: SseRequest) => Promise<SseOpen>;

/**
 * One event (or one unfinished line) is larger than the request's maxEventSize. Both transports throw it from
 * the items iterator after the complete events before it; the stream then fails for good (fetching the same event
 * again would fail the same way).
 */
export class EventTooLargeError extends Error {
  override name = 'EventTooLargeError';
  constructor(
    readonly limit: number,
    readonly size: number | null,
    options?: { cause?: unknown },
  ) {
    super(size === null ? `an SSE event grew past ${limit} characters` : `an SSE event of ${size} characters is larger than the ${limit} allowed`, options);
  }
}

/** Whether an answer is an event stream (`text/event-stream`, any parameters, any case). */
export function isEventStream(response: Response): boolean {
  const type = response.headers.get('content-type');
  return response.status === 200 && type !== null && (type.split(';')[0] ?? '').trim().toLowerCase() === 'text/event-stream';
}
