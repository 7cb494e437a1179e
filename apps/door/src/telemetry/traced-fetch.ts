import type { FetchLike } from '@murmur/client';
import { answerFactsOf, requestFacts } from './a2a-facts.js';
import type { OutboundHttp } from './http-client-spans.js';
import { type OutboundA2a, type TraceContext, TRACEPARENT_HEADER, TRACESTATE_HEADER } from './trace-context.js';

/** The low-cardinality name of a request that got no HTTP answer (docs/telemetry.md, error.type). */
function failureName(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  return name === 'AbortError' || name === 'TimeoutError' ? 'timeout' : name || '_OTHER';
}

/**
 * A fetch that gives every JSON-RPC request it sends an `a2a.client` span (docs/telemetry.md): named after the
 * request's method, its traceparent the one the request carries, ended with what the answer says. Off (no spans),
 * it is `fetch` itself: nothing is parsed and nothing is added.
 */
export function tracedFetch(outbound: OutboundA2a | null, fetch: FetchLike): FetchLike {
  if (outbound === null) return fetch;
  return async (input, init) => {
    let method = '_OTHER';
    let params: unknown;
    try {
      const body = JSON.parse(typeof init?.body === 'string' ? init.body : '') as { method?: unknown; params?: unknown };
      if (typeof body.method === 'string') method = body.method;
      params = body.params;
    } catch {
      // Not a JSON-RPC body: the span says `_OTHER`.
    }
    const call = outbound.begin(method, requestFacts(params), input);
    const response = await sendInSpan(fetch, input, init, call);
    if (!response.ok) {
      call.end({ errorType: String(response.status) });
      return response;
    }
    // The caller reads the answer; its copy is read beside it, and only its facts are kept.
    void response
      .clone()
      .text()
      .then(
        (body) => call.end(answerFactsOf(body)),
        (error: unknown) => call.end({ errorType: failureName(error) }),
      );
    return response;
  };
}

/** A client span as both fetches end it when no answer came. */
interface SpanCall {
  readonly traceContext: TraceContext | null;
  end(outcome: { errorType: string }): void;
}

/** Sends the request carrying the span's context; a request that gets no answer ends the span with why, and throws. */
async function sendInSpan(fetch: FetchLike, input: Parameters<FetchLike>[0], init: Parameters<FetchLike>[1], call: SpanCall): Promise<Response> {
  try {
    return await fetch(input, { ...init, headers: withContext(init?.headers, call.traceContext) });
  } catch (error) {
    call.end({ errorType: failureName(error) });
    throw error;
  }
}

/** The request's headers with the span's traceparent (and the task's tracestate) set. */
function withContext(given: RequestInit['headers'], context: TraceContext | null): Headers {
  const headers = new Headers(given);
  if (context !== null) {
    headers.set(TRACEPARENT_HEADER, context.traceparent);
    if (context.tracestate) headers.set(TRACESTATE_HEADER, context.tracestate);
  }
  return headers;
}

/**
 * A fetch that gives every plain HTTP request it sends an HTTP client span (docs/telemetry.md, "HTTP client spans"),
 * named after its method, ended when the answer's status line is read (a body read on afterwards — a peer file — is
 * its tool call's time). `shownUrl` is the span's `url.full`. Off, it is `fetch` itself.
 */
export function tracedHttpFetch(outbound: OutboundHttp | null, fetch: FetchLike, shownUrl: string): FetchLike {
  if (outbound === null) return fetch;
  return async (input, init) => {
    const call = outbound.begin((init?.method ?? 'GET').toUpperCase(), shownUrl);
    const response = await sendInSpan(fetch, input, init, call);
    call.end({ status: response.status });
    return response;
  };
}
