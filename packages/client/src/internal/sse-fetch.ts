/** The seam's environment-free transport: `fetch` for the HTTP, eventsource-parser for the bytes. */
import { createParser } from 'eventsource-parser';
import { EventTooLargeError, isEventStream, type SseItem, type SseOpen, type SseRequest } from './sse-types.js';

export async function openWithFetch(request: SseRequest): Promise<SseOpen> {
  const response = await request.fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, signal: request.signal });
  if (!isEventStream(response)) {
    return { type: 'answer', status: response.status, headers: response.headers, text: await response.text() };
  }
  const body = response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return { type: 'stream', status: response.status, headers: response.headers, items: readSseItems(body, request.maxEventSize) };
}

/**
 * Parses an SSE body into items, reading only as fast as the items are taken (no queue: the socket's own buffer
 * is the back-pressure). Bytes are decoded with `stream: true`, so a UTF-8 character split across chunks survives.
 * Unknown fields and `event:` lines are ignored (seed 001, "Unknown frames and keys"; the door sends none).
 * An unfinished event at the end of the body is dropped, as the SSE spec says (HTML §9.2.6).
 *
 * `maxEventSize` bounds each event's data, whether it arrives in one read or across many (eventsource-parser's own
 * limit sees only what it buffers between reads): the complete events before an oversized one are yielded, then
 * EventTooLargeError is thrown.
 */
export async function* readSseItems(body: ReadableStream<Uint8Array>, maxEventSize?: number): AsyncGenerator<SseItem, void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const pending: SseItem[] = [];
  let tooLarge: EventTooLargeError | null = null;
  const limit = maxEventSize ?? Number.POSITIVE_INFINITY;
  const parser = createParser({
    maxBufferSize: maxEventSize,
    onEvent: (event) => {
      if (tooLarge !== null) return;
      if (event.data.length > limit) tooLarge = new EventTooLargeError(limit, event.data.length);
      else pending.push({ type: 'event', id: event.id ?? null, data: event.data });
    },
    onComment: (text) => {
      if (tooLarge === null) pending.push({ type: 'comment', text });
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') tooLarge ??= new EventTooLargeError(limit, null, { cause: error });
    },
  });
  let endsInCr = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (text !== '') endsInCr = text.endsWith('\r');
      // The parser holds a final CR, waiting to see whether LF follows; at the end nothing follows, so it ended a
      // line: CRLF reads as that same line end, and completes an event the body ended with CR CR.
      parser.feed(done && endsInCr ? `${text}\n` : text);
      if (pending.length === 0 && !done && tooLarge === null) yield { type: 'bytes' };
      for (const item of pending) yield item;
      pending.length = 0;
      if (tooLarge !== null) throw tooLarge;
      if (done) return;
    }
  } finally {
    // Closing early (break, abort, watchdog) releases the connection.
    reader.cancel().catch(() => {});
  }
}
