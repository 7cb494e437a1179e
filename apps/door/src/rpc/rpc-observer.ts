/** A W3C trace context as the pipeline hands it on: the shape telemetry/trace-context.ts names TraceContext. */
import type { RequestHeaderLines } from '@murmur/protocol';
export interface CallTraceContext {
  traceparent: string;
  tracestate?: string;
}

/** One JSON-RPC request being served, as an observer follows it: the context its method continues, and its end. */
export interface RpcObservation {
  /** The request's server span as a trace context: a task the request starts continues it. */
  readonly traceContext: CallTraceContext | null;
  /** The request's answer: its HTTP status and JSON text (empty for an event stream, which ends on `streamEnded`). */
  end(status: number, body: string): void;
  /** An event stream's task as it stands, then each state it reports: the span keeps the task and its last state. */
  streamTask(task: StreamedTask): void;
  streamEnded(): void;
}

/** What an event stream says of its task: its id, a state, and (on the opening task) its context. */
export interface StreamedTask {
  taskId: string;
  state: string;
  contextId?: string;
}

/**
 * Follows every JSON-RPC request from the moment its method is read (docs/telemetry.md, `a2a.server` spans). The
 * pipeline holds none when telemetry is off, and then does nothing more per request than check that it holds none.
 */
export interface RpcObserver {
  begin(method: string, params: unknown, headers: RequestHeaderLines, protocolVersion: string): RpcObservation;
}
