import type { FetchLike } from '@murmur/client';

/** Which task (and which of its tool calls) sends an outbound request. */
export interface OutboundCaller {
  taskId: string;
  /** The tool call sending it: its execute_tool span is the request span's parent (else the task's latest open call). */
  toolCallId?: string;
}

/** A plan's capsule step, whose own execute_tool span its requests are children of (docs/plans.md). */
export interface PlanStepRef {
  planCallId: string;
  stepId: string;
  tool: string;
}

/** A W3C trace context handed over outside a request's headers (a delegation's order). */
export interface CarriedTraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * Client spans for the runtime's outbound requests (docs/telemetry.md, "Outbound requests"), implemented by
 * telemetry/ and handed down as a port: each method wraps the fetch a request goes out through, so that the request
 * gets its span and carries that span's traceparent (and the task's tracestate). With telemetry off each returns the
 * fetch it is given: no span, no header, nothing parsed.
 */
export interface OutboundTracing {
  /** A2A JSON-RPC requests: one `a2a.client` span each, a child of the calling tool call's span, or of `step`'s. */
  a2a(caller: OutboundCaller, fetch: FetchLike, step?: PlanStepRef): FetchLike;
  /** A2A JSON-RPC requests made for a context carried in by other means (a delegation's completion): children of `parent`. */
  a2aUnder(parent: CarriedTraceContext | null, fetch: FetchLike): FetchLike;
  /** Plain HTTP requests to a peer's plane: one HTTP client span each; `shownUrl` is `url.full`, its secrets already withheld. */
  http(caller: OutboundCaller, fetch: FetchLike, shownUrl: string): FetchLike;
}

/** Telemetry off, or no telemetry at all (a unit test): every fetch is itself. */
export const UNTRACED: OutboundTracing = { a2a: (_c, fetch) => fetch, a2aUnder: (_p, fetch) => fetch, http: (_c, fetch) => fetch };

/** The token the tool layer reads the port by; app.module.ts binds it to telemetry/'s Telemetry. */
export const OUTBOUND_TRACING = Symbol('OUTBOUND_TRACING');
