import { ROOT_CONTEXT, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import type { RequestHeaderLines } from '@murmur/protocol';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { answerFactsOf, requestFacts } from './a2a-facts.js';
import { a2aAttributes, type CardAgent, endA2aSpan } from './a2a-span-attributes.js';
import { type A2aFacts, type TraceContext, traceContextOf } from './trace-context.js';

const propagator = new W3CTraceContextPropagator();
const now = (): number => performance.timeOrigin + performance.now();

/** What rpc/rpc-observer.ts's RpcObservation asks, as this side gives it (the layers keep the two files apart). */
interface Observation {
  readonly traceContext: TraceContext | null;
  end(status: number, body: string): void;
  streamTask(task: { taskId: string; state: string; contextId?: string }): void;
  streamEnded(): void;
}

/**
 * An `a2a.server` span for every JSON-RPC request whose method the door read (docs/telemetry.md): named after the
 * method, a child of the caller's valid traceparent (else the root of a trace of its own), ended with what the answer
 * says. A task the request starts continues this span.
 */
export class A2aServerSpans {
  constructor(
    private readonly tracer: Tracer,
    private readonly server: { address: string; port: number } | null,
    /** This door's agent, as its own card describes it. */
    private readonly agent: CardAgent,
  ) {}

  begin(method: string, params: unknown, headers: RequestHeaderLines, protocolVersion: string): Observation {
    const caller = traceContextOf(headers);
    const parent =
      caller === null ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, caller, { get: (c, k) => c[k as keyof TraceContext], keys: (c) => Object.keys(c) });
    const span = this.tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, startTime: now(), attributes: a2aAttributes(method, requestFacts(params), this.server, protocolVersion, this.agent) },
      parent,
    );
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, {
      set: (c, k, v) => {
        c[k] = v;
      },
    });
    const traceContext =
      carrier.traceparent === undefined
        ? null
        : carrier.tracestate
          ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
          : { traceparent: carrier.traceparent };
    let ended = false;
    const end = (facts: Parameters<typeof endA2aSpan>[1]) => {
      if (ended) return;
      ended = true;
      endA2aSpan(span, facts, now());
    };
    // An event stream's task: the one it opened with, and the last state it wrote (set when the stream ends).
    const streamed: A2aFacts = {};
    return {
      traceContext,
      end: (status, body) => end(status === 200 ? answerFactsOf(body) : { errorType: String(status) }),
      streamTask: (task) => {
        streamed.taskId = task.taskId;
        streamed.state = task.state;
        if (task.contextId) streamed.contextId = task.contextId;
      },
      streamEnded: () => end(streamed),
    };
  }
}
