import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TraceContext } from './trace-context.js';

/** One live task's spans: the task's own, the inference call in flight, and its tool calls by id. */
interface LiveTask {
  span: Span;
  context: Context;
  turn: number;
  inference: Span | null;
  tools: Map<string, Span>;
}

type Fields = Readonly<Record<string, unknown>>;

const propagator = new W3CTraceContextPropagator();

/**
 * Wall-clock milliseconds with sub-millisecond precision, from one monotonic source for every span. The SDK's own
 * default starts a span at Date.now() (whole milliseconds) and ends it by performance.now(), so a child could seem
 * to start before its sibling ended; every start, event and end here passes this clock's time instead.
 */
const now = (): number => performance.timeOrigin + performance.now();
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Attributes with the undefined values left out (OTel drops them anyway, but a test reads what is set). */
function defined(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * Builds each task's trace from the door's own trace records and task events (docs/telemetry.md): a task span from
 * `task_start` to `task_end`, a child per inference call (its `inference` record carries the tokens) and per tool
 * call (its `tool_call` record carries status and exit code). Holds only live tasks; an ended task is forgotten.
 */
export class TaskSpans {
  private readonly live = new Map<string, LiveTask>();

  constructor(
    private readonly tracer: Tracer,
    private readonly agentName: string,
  ) {}

  /** A trace record, just written. Records of tasks that were never started here are ignored. */
  record(type: string, fields: Fields): void {
    const taskId = str(fields.task_id);
    if (taskId === undefined) return;
    if (type === 'task_start') {
      this.start(taskId, fields);
      return;
    }
    const task = this.live.get(taskId);
    if (!task) return;
    switch (type) {
      case 'inference':
        this.endInference(task, fields);
        return;
      case 'tool_call':
        this.endTool(task, fields);
        return;
      case 'task_input_required':
        task.span.addEvent('murmur.input_required', now());
        return;
      case 'task_resumed':
        task.span.addEvent('murmur.resumed', defined({ 'murmur.reply.chars': num(fields.reply_chars) }), now());
        return;
      case 'member_call_start':
        task.span.addEvent('murmur.member_call_start', defined({ 'murmur.member': str(fields.member), 'murmur.member.task_id': str(fields.member_task_id) }), now());
        return;
      case 'task_end':
        this.end(taskId, task, fields);
        return;
      default:
        return;
    }
  }

  inferenceStarted(taskId: string): void {
    const task = this.live.get(taskId);
    if (!task) return;
    task.turn += 1;
    task.inference?.end(now());
    task.inference = this.tracer.startSpan('chat', { kind: SpanKind.CLIENT, startTime: now(), attributes: { 'gen_ai.operation.name': 'chat', 'murmur.turn': task.turn } }, task.context);
  }

  toolStarted(taskId: string, toolCallId: string, toolName: string): void {
    const task = this.live.get(taskId);
    if (!task) return;
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': toolName, 'gen_ai.tool.call.id': toolCallId, 'murmur.turn': task.turn };
    task.tools.set(toolCallId, this.tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, startTime: now(), attributes }, task.context));
  }

  /**
   * The trace context an outbound call of this task carries: its tool call in flight, else the task itself; with the
   * tracestate the task's caller sent, which every span of the task inherits (Trace Context §3.3: forwarded as received).
   */
  traceContextFor(taskId: string): TraceContext | null {
    const task = this.live.get(taskId);
    if (!task) return null;
    const open = [...task.tools.values()].at(-1) ?? task.span;
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, open), carrier, {
      set: (c, k, v) => {
        c[k] = v;
      },
    });
    if (carrier.traceparent === undefined) return null;
    return carrier.tracestate ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate } : { traceparent: carrier.traceparent };
  }

  private start(taskId: string, fields: Fields): void {
    const traceparent = str(fields.traceparent);
    const tracestate = str(fields.tracestate);
    const carrier: Record<string, string> = traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : {};
    const parent = traceparent ? propagator.extract(ROOT_CONTEXT, carrier, { get: (c, k) => c[k], keys: (c) => Object.keys(c) }) : ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `invoke_agent ${this.agentName}`,
      {
        // A task that continues a caller's trace is the server side of that call.
        kind: trace.getSpanContext(parent) ? SpanKind.SERVER : SpanKind.INTERNAL,
        startTime: now(),
        attributes: defined({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': this.agentName,
          'gen_ai.conversation.id': str(fields.context_id),
          'murmur.task.id': taskId,
          'murmur.message.id': str(fields.message_id),
          'murmur.task.origin': str(fields.origin),
          'murmur.task.trust': str(fields.trust),
        }),
      },
      parent,
    );
    this.live.set(taskId, { span, context: trace.setSpan(ROOT_CONTEXT, span), turn: 0, inference: null, tools: new Map() });
  }

  private endInference(task: LiveTask, fields: Fields): void {
    const span = task.inference;
    if (!span) return;
    task.inference = null;
    const model = str(fields.model);
    if (model) span.updateName(`chat ${model}`);
    const usage = typeof fields.usage === 'object' && fields.usage !== null ? (fields.usage as Record<string, unknown>) : {};
    const stop = str(fields.stop_reason);
    span.setAttributes(
      defined({
        'gen_ai.request.model': model,
        'gen_ai.response.finish_reasons': stop ? [stop] : undefined,
        'gen_ai.usage.input_tokens': num(usage.input),
        'gen_ai.usage.output_tokens': num(usage.output),
        'gen_ai.usage.cache_read.input_tokens': num(usage.cached),
        'gen_ai.usage.cache_creation.input_tokens': num(usage.cacheWrite),
        'murmur.driver': str(fields.driver),
        'murmur.usage.reported': fields.usage !== 'unreported',
        'murmur.tool_calls': num(fields.tool_calls),
        'murmur.first_token_ms': num(fields.first_token_ms),
      }),
    );
    if (stop === 'error' || stop === 'max_tokens') span.setStatus({ code: SpanStatusCode.ERROR, message: `stop reason ${stop}` });
    span.end(now());
  }

  private endTool(task: LiveTask, fields: Fields): void {
    const id = str(fields.tool_call_id);
    const span = id === undefined ? undefined : task.tools.get(id);
    if (!span || id === undefined) return;
    task.tools.delete(id);
    const status = str(fields.status);
    span.setAttributes(defined({ 'murmur.tool.status': status, 'murmur.tool.exit_code': num(fields.exit_code), 'murmur.tool.work_id': str(fields.work_id) }));
    // `error`: the call failed or was refused; a command that ran and exited non-zero `passed` (its exit code says so).
    if (status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool call failed' });
    span.end(now());
  }

  private end(taskId: string, task: LiveTask, fields: Fields): void {
    this.live.delete(taskId);
    // A call still open when its task ended (canceled, failed mid-call) ends with it, marked so.
    for (const open of [task.inference, ...task.tools.values()]) {
      if (!open) continue;
      open.setStatus({ code: SpanStatusCode.ERROR, message: 'the task ended before this call returned' });
      open.end(now());
    }
    const state = str(fields.state);
    task.span.setAttributes(defined({ 'murmur.task.state': state, 'murmur.task.turns': task.turn, 'murmur.task.exit_status': str(fields.exit_status) }));
    if (state === 'TASK_STATE_FAILED') task.span.setStatus({ code: SpanStatusCode.ERROR, message: str(fields.status) ?? 'the task failed' });
    task.span.end(now());
  }
}
