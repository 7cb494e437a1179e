import { type Attributes, type Span, SpanStatusCode } from '@opentelemetry/api';
import type { TraceContext } from './trace-context.js';

/** How a plain HTTP request ended: its answer's status, or the name of the failure that left it unanswered. */
export type HttpAnswer = { status: number } | { errorType: string };

/** One outbound HTTP request's client span: the trace context its headers carry, and its end. */
interface OutboundHttpCall {
  readonly traceContext: TraceContext | null;
  end(answer: HttpAnswer): void;
}

/** Client spans for one task's plain HTTP requests (docs/telemetry.md, "HTTP client spans"). */
export interface OutboundHttp {
  begin(method: string, shownUrl: string): OutboundHttpCall;
}

/** A URL's host and port, as server.address and server.port name them (the scheme's default port when none is given). */
export function serverOf(url: string): { address: string; port: number } | null {
  try {
    const parsed = new URL(url);
    return { address: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return null;
  }
}

/**
 * `url.full` as the HTTP conventions allow it: no user info, no query, no fragment (the caller has already put
 * `REDACTED` in place of a secret in the path, as a peer handle's).
 */
function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.href;
  } catch {
    return '';
  }
}

/** The attributes an HTTP client span starts with (OTel HTTP semantic conventions, "HTTP client span"). */
export function httpAttributes(method: string, shownUrl: string): Attributes {
  const out: Attributes = { 'http.request.method': method };
  const full = withoutSecrets(shownUrl);
  if (full !== '') out['url.full'] = full;
  const server = serverOf(shownUrl);
  if (server !== null) {
    out['server.address'] = server.address;
    out['server.port'] = server.port;
  }
  return out;
}

/**
 * Ends an HTTP client span once its answer's status line is read: `http.response.status_code`; a status of 400 or
 * more (a client span's errors) or a request that got no answer sets `error.type` and status ERROR.
 */
export function endHttpSpan(span: Span, answer: HttpAnswer, endTime: number): void {
  const errorType = 'status' in answer ? (answer.status >= 400 ? String(answer.status) : undefined) : answer.errorType;
  if ('status' in answer) span.setAttribute('http.response.status_code', answer.status);
  if (errorType !== undefined) {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: `the request failed: ${errorType}` });
  }
  span.end(endTime);
}
