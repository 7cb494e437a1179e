import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TraceLine, TraceLineOf } from '../records/trace-schema.js';
import { unhandledRecord } from '../records/unhandled-record.js';
import type { TraceContext } from './trace-context.js';

/** One live task's spans: the task's own, the inference call in flight, and its tool calls by id. */
interface LiveTask {
  span: Span;
  context: Context;
  turn: number;
  inference: Span | null;
  tools: Map<string, Span>;
  /** Plans in flight, by their submit-plan call's id (docs/plans.md), with when each started. */
  plans: Map<string, { span: Span; startedAt: number }>;
}

const propagator = new W3CTraceContextPropagator();

/**
 * Wall-clock milliseconds with sub-millisecond precision, from one monotonic source for every span. The SDK's own
 * default starts a span at Date.now() (whole milliseconds) and ends it by performance.now(), so a child could seem
 * to start before its sibling ended; every start, event and end here passes this clock's time instead.
 */
const now = (): number => performance.timeOrigin + performance.now();

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
  record(line: TraceLine): void {
    switch (line.type) {
      case 'task_start':
        this.start(line);
        return;
      case 'inference': {
        const task = this.live.get(line.task_id);
        if (task) this.endInference(task, line);
        return;
      }
      case 'tool_call': {
        const task = this.live.get(line.task_id);
        if (task) this.endTool(task, line);
        return;
      }
      case 'plan_start':
      case 'plan_step':
      case 'plan_end': {
        const task = this.live.get(line.task_id);
        if (task) this.plan(task, line);
        return;
      }
      case 'task_input_required':
        this.live.get(line.task_id)?.span.addEvent('murmur.input_required', now());
        return;
      case 'task_resumed':
        this.live.get(line.task_id)?.span.addEvent('murmur.resumed', { 'murmur.reply.chars': line.reply_chars }, now());
        return;
      case 'task_input_timeout':
        this.live.get(line.task_id)?.span.addEvent('murmur.input_timeout', { 'murmur.input.waited_secs': line.waited_secs }, now());
        return;
      case 'member_call_start':
        this.live.get(line.task_id)?.span.addEvent('murmur.member_call_start', { 'murmur.member': line.member, 'murmur.member.task_id': line.member_task_id }, now());
        return;
      case 'task_end': {
        const task = this.live.get(line.task_id);
        if (task) this.end(line.task_id, task, line);
        return;
      }
      // Records no span reads: the session's, the queue's refusals, and what tools and formations record beside their calls.
      case 'session_start':
      case 'session_end':
      case 'session_deadline':
      case 'commands_lost':
      case 'task_rejected':
      case 'task_settled_on_reopen':
      case 'task_continued':
      case 'task_result':
      case 'inference_retry':
      case 'spend_refused':
      case 'keep_working':
      case 'done_check':
      case 'tool_call_denied':
      case 'hook_artifact':
      case 'hook_failed':
      case 'task_reopened':
      case 'compaction':
      case 'conversation_trimmed':
      case 'deadline_notice':
      case 'command_result_task':
      case 'control_applied':
      case 'control_refused':
      case 'control_change':
      case 'background_command':
      case 'session_status':
      case 'peer_handle_mint':
      case 'peer_handle_redeem':
      case 'peer_handle_refused':
      case 'peer_file_fetched':
      case 'member_call_busy':
      case 'member_call':
      case 'delegation_start':
      case 'delegation':
      case 'delegation_completion':
        return;
      default:
        unhandledRecord(line);
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

  private start(fields: TraceLineOf<'task_start'>): void {
    const taskId = fields.task_id;
    const { traceparent, tracestate } = fields;
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
          'gen_ai.conversation.id': fields.context_id,
          'murmur.task.id': taskId,
          'murmur.message.id': fields.message_id,
          'murmur.task.origin': fields.origin,
          'murmur.task.trust': fields.trust,
        }),
      },
      parent,
    );
    this.live.set(taskId, { span, context: trace.setSpan(ROOT_CONTEXT, span), turn: 0, inference: null, tools: new Map(), plans: new Map() });
  }

  private endInference(task: LiveTask, fields: TraceLineOf<'inference'>): void {
    const span = task.inference;
    if (!span) return;
    task.inference = null;
    const model = fields.model;
    if (model) span.updateName(`chat ${model}`);
    const usage = fields.usage === 'unreported' ? {} : fields.usage;
    const stop = fields.stop_reason;
    span.setAttributes(
      defined({
        'gen_ai.request.model': model,
        'gen_ai.response.finish_reasons': stop ? [stop] : undefined,
        'gen_ai.usage.input_tokens': usage.input,
        'gen_ai.usage.output_tokens': usage.output,
        'gen_ai.usage.cache_read.input_tokens': usage.cached,
        'gen_ai.usage.cache_creation.input_tokens': usage.cacheWrite,
        'murmur.driver': fields.driver,
        'murmur.usage.reported': fields.usage !== 'unreported',
        'murmur.tool_calls': fields.tool_calls,
        'murmur.first_token_ms': fields.first_token_ms ?? undefined,
      }),
    );
    if (stop === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: fields.failure ?? 'the call failed' });
    else if (stop === 'error' || stop === 'max_tokens') span.setStatus({ code: SpanStatusCode.ERROR, message: `stop reason ${stop}` });
    span.end(now());
  }

  private endTool(task: LiveTask, fields: TraceLineOf<'tool_call'>): void {
    const id = fields.tool_call_id;
    const span = task.tools.get(id);
    if (!span) return;
    task.tools.delete(id);
    const status = fields.status;
    span.setAttributes(defined({ 'murmur.tool.status': status, 'murmur.tool.exit_code': fields.exit_code ?? undefined, 'murmur.tool.work_id': fields.work_id }));
    // `error`: the call failed or was refused; a command that ran and exited non-zero `passed` (its exit code says so).
    if (status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool call failed' });
    span.end(now());
  }

  /**
   * A plan (docs/telemetry.md): a `plan` span under its submit-plan call's span, from plan_start to plan_end, and a
   * child per step, placed by its plan_step record (written as the step ends, duration_ms after it began; a whole
   * millisecond, so a step never starts before its plan).
   */
  private plan(task: LiveTask, fields: TraceLineOf<'plan_start' | 'plan_step' | 'plan_end'>): void {
    const id = fields.tool_call_id;
    if (fields.type === 'plan_start') {
      const call = task.tools.get(id);
      const parent = call ? trace.setSpan(ROOT_CONTEXT, call) : task.context;
      const attributes = { 'gen_ai.operation.name': 'plan', 'gen_ai.tool.call.id': id, 'murmur.plan.steps': fields.steps.length, 'murmur.turn': task.turn };
      const startedAt = now();
      task.plans.set(id, { span: this.tracer.startSpan('plan', { kind: SpanKind.INTERNAL, startTime: startedAt, attributes }, parent), startedAt });
      return;
    }
    const open = task.plans.get(id);
    if (!open) return;
    const plan = open.span;
    if (fields.type === 'plan_end') {
      task.plans.delete(id);
      plan.setAttributes({ 'murmur.plan.status': fields.status, 'murmur.plan.passed': fields.passed, 'murmur.plan.failed': fields.failed, 'murmur.plan.skipped': fields.skipped });
      if (fields.status !== 'completed') plan.setStatus({ code: SpanStatusCode.ERROR, message: `the plan ${fields.status === 'stopped' ? 'stopped at a step' : 'was canceled'}` });
      plan.end(now());
      return;
    }
    const end = now();
    const attributes = defined({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': fields.tool,
      'gen_ai.tool.call.id': `${id}.${fields.step}`,
      'murmur.plan.step': fields.step,
      'murmur.plan.step.index': fields.index,
      'murmur.plan.step.status': fields.status,
      'murmur.tool.exit_code': fields.exit_code ?? undefined,
    });
    const step = this.tracer.startSpan(`execute_tool ${fields.tool}`, { kind: SpanKind.INTERNAL, startTime: Math.max(open.startedAt, end - fields.duration_ms), attributes }, trace.setSpan(ROOT_CONTEXT, plan));
    if (['failed', 'refused', 'denied', 'canceled'].includes(fields.status)) step.setStatus({ code: SpanStatusCode.ERROR, message: `the step ${fields.status}` });
    step.end(end);
  }

  private end(taskId: string, task: LiveTask, fields: TraceLineOf<'task_end'>): void {
    this.live.delete(taskId);
    // A call still open when its task ended (canceled, failed mid-call) ends with it, marked so.
    for (const open of [task.inference, ...[...task.plans.values()].map((p) => p.span), ...task.tools.values()]) {
      if (!open) continue;
      open.setStatus({ code: SpanStatusCode.ERROR, message: 'the task ended before this call returned' });
      open.end(now());
    }
    const state = fields.state;
    task.span.setAttributes(defined({ 'murmur.task.state': state, 'murmur.task.turns': task.turn, 'murmur.task.exit_status': fields.exit_status }));
    if (state === 'TASK_STATE_FAILED') task.span.setStatus({ code: SpanStatusCode.ERROR, message: fields.status ?? 'the task failed' });
    task.span.end(now());
  }
}
