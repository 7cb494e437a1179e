/**
 * The seam's browser transport: @microsoft/fetch-event-source 2.0.1, wrapped so that none of its defaults reach
 * a long-lived stream (STYLE "What to avoid" 5). Left alone, it:
 * 1. crashes under Node 20 when a stream ends: dispose() calls `document.removeEventListener` and
 *    `window.clearTimeout`. selectSseTransport() never picks it without a DOM;
 * 2. retries every second, forever, when a request fails and `onerror` returns nothing. Our onerror rethrows,
 *    which makes it dispose and reject: the client's own reconnect logic decides (with Last-Event-ID and back-off);
 * 3. aborts the request when the tab is hidden and re-POSTs it when the tab is shown — a second
 *    SendStreamingMessage would start a second task — unless `openWhenHidden: true`, which we always set;
 * 4. dispatches a message at every blank line, so the `:heartbeat` comment arrives as a message with empty data.
 *    Empty-data messages are dropped as events (the SSE spec never dispatches them) and reported as comments,
 *    which feed the heartbeat watchdog.
 */
import type { EventSourceMessage, FetchEventSourceInit } from '@microsoft/fetch-event-source';
import { ItemQueue } from './item-queue.js';
import { EventTooLargeError, isEventStream, type SseItem, type SseOpen, type SseRequest } from './sse-types.js';

/** The most items queued for a consumer that has stopped pulling; past it the connection is dropped, to be resumed. */
export const MAX_QUEUED_ITEMS = 4096;

/** The consumer fell more than MAX_QUEUED_ITEMS behind. The stream reconnects from the last id it delivered. */
export class ConsumerBehindError extends Error {
  override name = 'ConsumerBehindError';
}

/** Thrown from onopen to stop fetch-event-source once a non-stream answer has been read. */
class AnswerRead extends Error {}

/** The callbacks handed to fetchEventSource, built apart from the call so that tests can drive them directly. */
export interface WrapperCallbacks {
  onopen(response: Response): Promise<void>;
  onmessage(message: EventSourceMessage): void;
  onclose(): void;
  onerror(error: unknown): never;
}

export interface WrapperState {
  queue: ItemQueue<SseItem>;
  /** Aborting it stops fetch-event-source (and is how the queue's consumer closes the connection). */
  stop: AbortController;
  opened: (open: SseOpen) => void;
  /** An event with more data characters than this fails the stream with EventTooLargeError. @default Infinity */
  maxEventSize?: number;
}

export function wrapperCallbacks(state: WrapperState): WrapperCallbacks {
  return {
    async onopen(response) {
      if (isEventStream(response)) {
        state.opened({ type: 'stream', status: response.status, headers: response.headers, items: state.queue });
        return;
      }
      // A refusal is one JSON body: read it, hand it over, and stop (fetch-event-source's own onopen would throw a
      // plain Error and lose the body).
      state.opened({ type: 'answer', status: response.status, headers: response.headers, text: await response.text() });
      throw new AnswerRead();
    },
    onmessage(message) {
      if (state.stop.signal.aborted) return;
      // The library buffers a whole event before calling here, so this bounds what is handed on, not its memory.
      if (message.data.length > (state.maxEventSize ?? Number.POSITIVE_INFINITY)) {
        state.stop.abort(new EventTooLargeError(state.maxEventSize ?? 0, message.data.length));
        return;
      }
      const item: SseItem =
        message.data === '' ? { type: 'comment', text: '' } : { type: 'event', id: message.id === '' ? null : message.id, data: message.data };
      if (!state.queue.push(item)) state.stop.abort(new ConsumerBehindError(`more than ${MAX_QUEUED_ITEMS} events wait for the consumer`));
    },
    onclose() {
      state.queue.end();
    },
    onerror(error) {
      // Returning (even undefined) schedules a retry in 1 s, forever; throwing makes fetch-event-source give up.
      throw error;
    },
  };
}

export async function openWithFetchEventSource(request: SseRequest): Promise<SseOpen> {
  // Loaded on first use only: Node never selects this transport, so Node never loads the library.
  const { fetchEventSource } = await import('@microsoft/fetch-event-source');
  request.signal.throwIfAborted();
  const stop = new AbortController();
  const forwardAbort = () => stop.abort(request.signal.reason);
  request.signal.addEventListener('abort', forwardAbort, { once: true });
  const queue = new ItemQueue<SseItem>(MAX_QUEUED_ITEMS, () => stop.abort());

  return await new Promise<SseOpen>((resolve, reject) => {
    let opened = false;
    const callbacks = wrapperCallbacks({
      queue,
      stop,
      maxEventSize: request.maxEventSize,
      opened: (open) => {
        opened = true;
        resolve(open);
      },
    });
    const init: FetchEventSourceInit = {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: stop.signal,
      fetch: request.fetch as typeof fetch,
      openWhenHidden: true,
      ...callbacks,
    };
    fetchEventSource(request.url, init).then(
      () => {
        // It resolves when the body ends (after onclose) and when `stop` aborts (without onclose).
        request.signal.removeEventListener('abort', forwardAbort);
        if (!opened) reject(stop.signal.reason ?? new Error('the stream closed before it opened'));
        else if (stop.signal.aborted) queue.fail(stop.signal.reason);
        else queue.end();
      },
      (error: unknown) => {
        request.signal.removeEventListener('abort', forwardAbort);
        if (error instanceof AnswerRead) return;
        if (!opened) reject(error);
        else queue.fail(error);
      },
    );
  });
}
