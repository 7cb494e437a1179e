/**
 * The client's one SSE seam (STYLE 6). Everything above it sees an opened stream as an async iterator of items;
 * below it, one of two transports does the HTTP and the parsing:
 * - `fetch`: `fetch` + eventsource-parser. Environment-free; the default wherever there is no DOM (Node, workers).
 * - `fetch-event-source`: @microsoft/fetch-event-source 2.0.1, wrapped (see sse-fetch-event-source.ts). Used in
 *   browsers only: its dispose() touches `document` and `window`, so under Node it crashes when a stream ends.
 */
import { openWithFetch } from './sse-fetch.js';
import { openWithFetchEventSource } from './sse-fetch-event-source.js';
import type { SseTransport, SseTransportName } from './sse-types.js';

/** Whether the global scope has the DOM fetch-event-source 2.0.1 needs (`document` for its listeners, `window` for its timers). */
function hasDom(scope: object = globalThis): boolean {
  const g = scope as { document?: unknown; window?: unknown };
  return typeof g.document === 'object' && g.document !== null && typeof g.window === 'object' && g.window !== null;
}

/**
 * The transport to use: `auto` picks fetch-event-source where there is a DOM and fetch everywhere else, so Node
 * never selects fetch-event-source. Asking for fetch-event-source without a DOM is refused rather than left to crash.
 */
export function selectSseTransport(preference: SseTransportName | 'auto' = 'auto', scope: object = globalThis): SseTransportName {
  if (preference === 'fetch') return 'fetch';
  if (hasDom(scope)) return 'fetch-event-source';
  if (preference === 'fetch-event-source') {
    throw new TypeError(
      "sseTransport 'fetch-event-source' needs a DOM: @microsoft/fetch-event-source 2.0.1 touches document and window when a stream ends, which crashes Node. Use 'fetch' (the default outside browsers).",
    );
  }
  return 'fetch';
}

export function sseTransport(name: SseTransportName): SseTransport {
  switch (name) {
    case 'fetch':
      return openWithFetch;
    case 'fetch-event-source':
      return openWithFetchEventSource;
    default: {
      const unreachable: never = name;
      throw new TypeError(`unknown SSE transport ${String(unreachable)}`);
    }
  }
}
