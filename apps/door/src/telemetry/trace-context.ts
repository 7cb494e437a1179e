import type { RequestHeaderLines } from '@murmur/protocol';

/** The W3C Trace Context headers (https://www.w3.org/TR/trace-context/#traceparent-header, #tracestate-header). */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/**
 * Version 00: a 32-hex trace id and a 16-hex parent id, neither all zeros, and 2-hex flags (Trace Context §3.2.2).
 * Lower-case only, as the spec requires; anything else is ignored, never repaired.
 */
const TRACEPARENT = /^00-(?!0{32}-)[0-9a-f]{32}-(?!0{16}-)[0-9a-f]{16}-[0-9a-f]{2}$/;
/** What is kept of a tracestate: printable ASCII, at most 512 characters (the length §3.3.1.5 says a participant must propagate). */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** A task's W3C trace context: the traceparent, and the tracestate that came with it. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** The request's traceparent when it is one valid line, else null: the task then starts a trace of its own. */
function traceparentOf(headers: Pick<RequestHeaderLines, 'traceparent'>): string | null {
  const lines = headers.traceparent;
  // Trace Context §3.2: more than one traceparent line makes the header invalid.
  if (lines.length !== 1) return null;
  const value = (lines[0] ?? '').trim();
  return TRACEPARENT.test(value) ? value : null;
}

/**
 * The request's trace context: its valid traceparent, with its tracestate (several lines joined by commas, §3.3.1.1)
 * when there is one of printable ASCII within 512 characters. A tracestate without a valid traceparent is ignored (§3.3).
 */
export function traceContextOf(headers: Pick<RequestHeaderLines, 'traceparent' | 'tracestate'>): TraceContext | null {
  const traceparent = traceparentOf(headers);
  if (traceparent === null) return null;
  const tracestate = headers.tracestate
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(',');
  return TRACESTATE.test(tracestate) ? { traceparent, tracestate } : { traceparent };
}

/** Where an outbound call finds the trace context of the task it is made for; null when telemetry is off. */
export interface TraceContextSource {
  traceContextFor(taskId: string): TraceContext | null;
}

/** What one A2A request or its answer says, as the a2a.* span attributes carry it (docs/telemetry.md). */
export interface A2aFacts {
  taskId?: string;
  state?: string;
  messageId?: string;
  contextId?: string;
  /** The task ids the request's message references (`referenceTaskIds`), when it names any. */
  referenceTaskIds?: string[];
  /** The JSON-RPC error code, an HTTP status, or the failure's name (`timeout`, `connection`). */
  errorType?: string;
}

/** One outbound A2A request's client span: the trace context its headers carry, and its end. */
interface OutboundA2aCall {
  readonly traceContext: TraceContext | null;
  end(answer: A2aFacts): void;
}

/** Client spans for one calling task's outbound A2A requests, each a child of the span that was open when it was made. */
export interface OutboundA2a {
  begin(method: string, request: A2aFacts, url: string): OutboundA2aCall;
}

/** Where outbound A2A requests find their client spans; null when telemetry is off. */
export interface OutboundA2aSource {
  outboundFor(taskId: string): OutboundA2a | null;
}
