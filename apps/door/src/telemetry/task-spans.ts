import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TraceLine, TraceLineOf } from '../records/trace-schema.js';
import { unhandledRecord } from '../records/unhandled-record.js';
import { a2aAttributes, endA2aSpan } from './a2a-span-attributes.js';
import type { GenAiMetrics } from './genai-metrics.js';
import { PLAN_WORKFLOW, providerName, TOOL_TYPE } from './genai-names.js';
import type { PlanStepRef } from '../egress/outbound-tracing.js';
import { endHttpSpan, type HttpAnswer, httpAttributes, type OutboundHttp, serverOf } from './http-client-spans.js';
import type { A2aFacts, OutboundA2a, TraceContext } from './trace-context.js';

/** One live task's spans: the task's own, the inference call in flight, and its tool calls by id. */
interface LiveTask {
  span: Span;
  /** The formation's workflow span this task opened (docs/telemetry.md, "Formations"), ended with the task. */
  workflow: { span: Span; startedAt: number } | null;
  context: Context;
  conversationId: string;
  startedAt: number;
  turn: number;
  /**
   * Task events can be held behind a commit (tasks/task-events.ts) while records are written at once: a call's record
   * may come before its start event. The highest turn and the tool calls whose records came first, so their late
   * start events open nothing.
   */
  recordedTurn: number;
  recordedTools: Set<string>;
  inference: { span: Span; startedAt: number } | null;
  tools: Map<string, { span: Span; startedAt: number; name: string }>;
  /**
   * Plans in flight, by their submit-plan call's id (docs/plans.md), with when each started, and the spans of their
   * capsule steps opened when the step sent its first request (a step's span is otherwise placed by its record).
   */
  plans: Map<string, { span: Span; startedAt: number; steps: Map<string, { span: Span; startedAt: number }> }>;
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
  /** The driver kind serving the session now (telemetry.ts sets it once the door's driver selection exists). */
  driverKindNow: () => string | undefined = () => undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly metrics: GenAiMetrics,
    private readonly agent: { name: string; id: string; version: string; description: string },
    /**
     * The formation this door's capsule coordinates, when it is a member that may call others (its name, the
     * workflow's): a task a caller outside the formation starts here runs the formation as a workflow.
     */
    private readonly formation: string | null = null,
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
      // A skill's call is a tool call whose record names the skill (docs/artifacts.md).
      case 'skill_call': {
        const task = this.live.get(line.task_id);
        if (task)
          this.endTool(task, { tool_call_id: line.tool_call_id, tool: line.skill, duration_ms: line.duration_ms, status: line.status, exit_code: null });
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
        this.live
          .get(line.task_id)
          ?.span.addEvent('murmur.member_call_start', { 'murmur.member': line.member, 'murmur.member.task_id': line.member_task_id }, now());
        return;
      case 'harness_start':
        this.live.get(line.task_id)?.span.addEvent(
          'murmur.harness_start',
          {
            'murmur.harness': line.harness,
            'murmur.harness.session_mode': line.session_mode,
            ...(line.harness_session_id === null ? {} : { 'murmur.harness.session_id': line.harness_session_id }),
          },
          now(),
        );
        return;
      case 'harness_end':
        this.live
          .get(line.task_id)
          ?.span.addEvent(
            'murmur.harness_end',
            { 'murmur.harness': line.harness, 'murmur.harness.outcome': line.outcome, 'murmur.harness.turns': line.turns },
            now(),
          );
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
      case 'harness_session_forgotten':
      case 'artifact_staged':
      case 'artifact_pulled':
      case 'tools_refreshed':
        return;
      default:
        unhandledRecord(line);
    }
  }

  inferenceStarted(taskId: string): void {
    const task = this.live.get(taskId);
    if (!task) return;
    task.turn += 1;
    if (task.recordedTurn >= task.turn) return;
    task.inference?.span.end(now());
    const startedAt = now();
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': providerName(this.driverKindNow()), 'murmur.turn': task.turn };
    task.inference = { span: this.tracer.startSpan('chat', { kind: SpanKind.CLIENT, startTime: startedAt, attributes }, task.context), startedAt };
  }

  toolStarted(taskId: string, toolCallId: string, toolName: string): void {
    const task = this.live.get(taskId);
    if (!task) return;
    if (task.recordedTools.delete(toolCallId)) return;
    this.openTool(task, toolCallId, toolName, now());
  }

  private openTool(task: LiveTask, toolCallId: string, toolName: string, startedAt: number): void {
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': toolName,
      'gen_ai.tool.type': TOOL_TYPE,
      'gen_ai.tool.call.id': toolCallId,
      'murmur.turn': task.turn,
    };
    task.tools.set(toolCallId, {
      span: this.tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, startTime: startedAt, attributes }, task.context),
      startedAt,
      name: toolName,
    });
  }

  /**
   * Client spans for this task's outbound A2A requests (docs/telemetry.md, `a2a.client`): each a child of the span
   * open now — the tool call making them (`toolCallId`, else the latest open one), else the task — or, for a plan's
   * capsule step, of the step's own execute_tool span, opened here and ended by its plan_step record.
   */
  outboundFor(taskId: string, toolCallId?: string, step?: PlanStepRef): OutboundA2a | null {
    const task = this.live.get(taskId);
    if (!task) return null;
    const stepSpan = step === undefined ? null : this.openStep(task, step);
    return this.outboundUnder(trace.setSpan(ROOT_CONTEXT, stepSpan ?? this.openSpan(task, toolCallId)));
  }

  /** Client spans under a given context: a delegation's completion, a child of the context its order carried. */
  outboundUnder(parent: Context): OutboundA2a {
    return {
      begin: (method: string, request: A2aFacts, url: string) => {
        const span = this.tracer.startSpan(
          method,
          { kind: SpanKind.CLIENT, startTime: now(), attributes: a2aAttributes(method, request, serverOf(url)) },
          parent,
        );
        return { traceContext: injected(span), end: (answer: A2aFacts) => endA2aSpan(span, answer, now()) };
      },
    };
  }

  /** The context a trace context carried outside headers names (ROOT_CONTEXT for none): what outboundUnder takes. */
  contextOf(carried: TraceContext | null): Context {
    return carried === null
      ? ROOT_CONTEXT
      : propagator.extract(ROOT_CONTEXT, carried, { get: (c, k) => c[k as keyof TraceContext], keys: (c) => Object.keys(c) });
  }

  /** HTTP client spans for this task's plain HTTP requests (fetch-peer-file's redeem, share-file's card read). */
  httpFor(taskId: string, toolCallId?: string): OutboundHttp | null {
    const task = this.live.get(taskId);
    if (!task) return null;
    const parent = trace.setSpan(ROOT_CONTEXT, this.openSpan(task, toolCallId));
    return {
      begin: (method: string, shownUrl: string) => {
        const span = this.tracer.startSpan(method, { kind: SpanKind.CLIENT, startTime: now(), attributes: httpAttributes(method, shownUrl) }, parent);
        return { traceContext: injected(span), end: (answer: HttpAnswer) => endHttpSpan(span, answer, now()) };
      },
    };
  }

  /** The span a request of this task is a child of: its tool call's, else the latest open tool call's, else the task's. */
  private openSpan(task: LiveTask, toolCallId?: string): Span {
    return (toolCallId === undefined ? undefined : task.tools.get(toolCallId)?.span) ?? [...task.tools.values()].at(-1)?.span ?? task.span;
  }

  /** A capsule step's execute_tool span, opened as its first request goes out (null when its plan is not in flight). */
  private openStep(task: LiveTask, step: PlanStepRef): Span | null {
    const plan = task.plans.get(step.planCallId);
    if (!plan) return null;
    const open = plan.steps.get(step.stepId);
    if (open) return open.span;
    const startedAt = now();
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': step.tool,
      'gen_ai.tool.type': TOOL_TYPE,
      'gen_ai.tool.call.id': `${step.planCallId}.${step.stepId}`,
      'murmur.plan.step': step.stepId,
    };
    const span = this.tracer.startSpan(
      `execute_tool ${step.tool}`,
      { kind: SpanKind.INTERNAL, startTime: startedAt, attributes },
      trace.setSpan(ROOT_CONTEXT, plan.span),
    );
    plan.steps.set(step.stepId, { span, startedAt });
    return span;
  }

  /**
   * The trace context an outbound call of this task carries: its tool call in flight, else the task itself; with the
   * tracestate the task's caller sent, which every span of the task inherits (Trace Context §3.3: forwarded as received).
   */
  traceContextFor(taskId: string): TraceContext | null {
    const task = this.live.get(taskId);
    if (!task) return null;
    return injected([...task.tools.values()].at(-1)?.span ?? task.span);
  }

  private start(fields: TraceLineOf<'task_start'>): void {
    const taskId = fields.task_id;
    const { traceparent, tracestate } = fields;
    const carrier: Record<string, string> = traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : {};
    const parent = traceparent ? propagator.extract(ROOT_CONTEXT, carrier, { get: (c, k) => c[k], keys: (c) => Object.keys(c) }) : ROOT_CONTEXT;
    const startedAt = now();
    // A task another member did not start is the formation's work — a caller's, or the session's own (the launch's
    // task the entry member is given, a detached command's result): its workflow span holds the task's span and,
    // through the member calls, every member's.
    const opensWorkflow = this.formation !== null && !fields.origin.startsWith('member:');
    const workflow = opensWorkflow
      ? {
          span: this.tracer.startSpan(
            `invoke_workflow ${this.formation}`,
            {
              kind: SpanKind.INTERNAL,
              startTime: startedAt,
              attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': this.formation ?? '' },
            },
            parent,
          ),
          startedAt,
        }
      : null;
    const span = this.tracer.startSpan(
      `invoke_agent ${this.agent.name}`,
      {
        // The convention's "invoke agent internal span": the request that started it has its own SERVER span.
        kind: SpanKind.INTERNAL,
        startTime: startedAt,
        attributes: defined({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': providerName(this.driverKindNow()),
          'gen_ai.agent.name': this.agent.name,
          'gen_ai.agent.id': this.agent.id,
          'gen_ai.agent.version': this.agent.version,
          'gen_ai.agent.description': this.agent.description,
          'gen_ai.conversation.id': fields.context_id,
          'murmur.task.id': taskId,
          'murmur.message.id': fields.message_id,
          'murmur.task.origin': fields.origin,
          'murmur.task.trust': fields.trust,
        }),
      },
      workflow ? trace.setSpan(ROOT_CONTEXT, workflow.span) : parent,
    );
    this.live.set(taskId, {
      span,
      workflow,
      context: trace.setSpan(ROOT_CONTEXT, span),
      conversationId: fields.context_id,
      startedAt,
      turn: 0,
      recordedTurn: 0,
      recordedTools: new Set(),
      inference: null,
      tools: new Map(),
      plans: new Map(),
    });
  }

  private endInference(task: LiveTask, fields: TraceLineOf<'inference'>): void {
    let open = task.inference;
    if (!open) {
      // The record came before its start event: the span is placed by the call's duration.
      task.recordedTurn = task.turn + 1;
      const startedAt = now() - fields.duration_ms;
      open = {
        span: this.tracer.startSpan(
          'chat',
          { kind: SpanKind.CLIENT, startTime: startedAt, attributes: { 'gen_ai.operation.name': 'chat', 'murmur.turn': fields.turn } },
          task.context,
        ),
        startedAt,
      };
    }
    task.inference = null;
    const { span } = open;
    const model = fields.model;
    if (model) span.updateName(`chat ${model}`);
    const usage = fields.usage === 'unreported' ? {} : fields.usage;
    const stop = fields.stop_reason;
    // `failed`: a driver failure; `error` and `max_tokens`: the call returned, but no answer can come of it.
    const errorType = stop === 'failed' || stop === 'error' || stop === 'max_tokens' ? stop : undefined;
    const provider = providerName(fields.driver_kind);
    // The record's milliseconds from the call's start to its first streamed chunk, in the convention's seconds.
    const firstChunkSeconds = fields.first_token_ms === null ? null : fields.first_token_ms / 1000;
    // Anthropic's input_tokens excludes cached tokens: the driver's `input` already adds both cache counts (anthropic.md).
    const metricAttributes = defined({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider,
      'gen_ai.request.model': model,
      'gen_ai.response.model': fields.response_model,
      'error.type': errorType,
    });
    span.setAttributes({
      ...metricAttributes,
      ...defined({
        'gen_ai.conversation.id': task.conversationId,
        'gen_ai.request.max_tokens': fields.max_tokens,
        'gen_ai.response.id': fields.response_id,
        'gen_ai.response.finish_reasons': stop ? [stop] : undefined,
        'gen_ai.usage.input_tokens': usage.input,
        'gen_ai.usage.output_tokens': usage.output,
        'gen_ai.usage.cache_read.input_tokens': usage.cached,
        'gen_ai.usage.cache_creation.input_tokens': usage.cacheWrite,
        'gen_ai.usage.reasoning.output_tokens': usage.reasoning,
        // Every driver streams its answer (the providers' drivers ask for `stream: true`; the script plays chunks).
        'gen_ai.request.stream': true,
        'gen_ai.response.time_to_first_chunk': firstChunkSeconds ?? undefined,
        'murmur.driver': fields.driver,
        'murmur.usage.reported': fields.usage !== 'unreported',
        'murmur.tool_calls': fields.tool_calls,
      }),
    });
    if (stop === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: fields.failure ?? 'the call failed' });
    else if (errorType) span.setStatus({ code: SpanStatusCode.ERROR, message: `stop reason ${stop}` });
    const end = now();
    span.end(end);
    this.metrics.inference((end - open.startedAt) / 1000, metricAttributes, usage, firstChunkSeconds);
  }

  private endTool(task: LiveTask, fields: Pick<TraceLineOf<'tool_call'>, 'tool_call_id' | 'tool' | 'duration_ms' | 'status' | 'exit_code' | 'work_id'>): void {
    const id = fields.tool_call_id;
    if (!task.tools.has(id)) {
      // The record came before its start event (see LiveTask.recordedTools).
      task.recordedTools.add(id);
      this.openTool(task, id, fields.tool, now() - (fields.duration_ms ?? 0));
    }
    const open = task.tools.get(id)!;
    task.tools.delete(id);
    const { span } = open;
    const status = fields.status;
    span.setAttributes(
      defined({ 'murmur.tool.status': status, 'murmur.tool.exit_code': fields.exit_code ?? undefined, 'murmur.tool.work_id': fields.work_id }),
    );
    // `error`: the call failed or was refused; a command that ran and exited non-zero `passed` (its exit code says so).
    if (status === 'error') {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool call failed' });
    }
    const end = now();
    span.end(end);
    this.recordTool(open.name, status === 'error' ? 'tool_error' : undefined, (end - open.startedAt) / 1000);
  }

  private recordTool(name: string, errorType: string | undefined, seconds: number): void {
    this.metrics.executeTool(
      seconds,
      defined({ 'gen_ai.tool.name': name, 'gen_ai.tool.type': TOOL_TYPE, 'gen_ai.agent.name': this.agent.name, 'error.type': errorType }),
    );
  }

  /**
   * A plan (docs/telemetry.md): an `invoke_workflow submit-plan` span under its submit-plan call's span, from
   * plan_start to plan_end, and a child per step, placed by its plan_step record (written as the step ends,
   * duration_ms after it began; a whole millisecond, so a step never starts before its plan). Not the convention's
   * `plan` operation, which is the phase where an agent decides a plan; this one runs the steps decided.
   */
  private plan(task: LiveTask, fields: TraceLineOf<'plan_start' | 'plan_step' | 'plan_end'>): void {
    const id = fields.tool_call_id;
    if (fields.type === 'plan_start') {
      const call = task.tools.get(id);
      const parent = call ? trace.setSpan(ROOT_CONTEXT, call.span) : task.context;
      const attributes = {
        'gen_ai.operation.name': 'invoke_workflow',
        'gen_ai.workflow.name': PLAN_WORKFLOW,
        'murmur.plan.call_id': id,
        'murmur.plan.steps': fields.steps.length,
        'murmur.turn': task.turn,
      };
      const startedAt = now();
      task.plans.set(id, {
        span: this.tracer.startSpan(`invoke_workflow ${PLAN_WORKFLOW}`, { kind: SpanKind.INTERNAL, startTime: startedAt, attributes }, parent),
        startedAt,
        steps: new Map(),
      });
      return;
    }
    const open = task.plans.get(id);
    if (!open) return;
    const plan = open.span;
    if (fields.type === 'plan_end') {
      task.plans.delete(id);
      plan.setAttributes({
        'murmur.plan.status': fields.status,
        'murmur.plan.passed': fields.passed,
        'murmur.plan.failed': fields.failed,
        'murmur.plan.skipped': fields.skipped,
      });
      const errorType = fields.status === 'completed' ? undefined : fields.status;
      if (errorType) {
        plan.setAttribute('error.type', errorType);
        plan.setStatus({ code: SpanStatusCode.ERROR, message: `the plan ${fields.status === 'stopped' ? 'stopped at a step' : 'was canceled'}` });
      }
      const end = now();
      plan.end(end);
      this.metrics.invokeWorkflow((end - open.startedAt) / 1000, defined({ 'gen_ai.workflow.name': PLAN_WORKFLOW, 'error.type': errorType }));
      return;
    }
    const end = now();
    const attributes = defined({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': fields.tool,
      'gen_ai.tool.type': TOOL_TYPE,
      'gen_ai.tool.call.id': `${id}.${fields.step}`,
      'murmur.plan.step': fields.step,
      'murmur.plan.step.index': fields.index,
      'murmur.plan.step.status': fields.status,
      'murmur.tool.exit_code': fields.exit_code ?? undefined,
    });
    // A capsule step that sent a request has its span open already (openStep); any other is placed by its record.
    const opened = open.steps.get(fields.step);
    open.steps.delete(fields.step);
    const startedAt = opened?.startedAt ?? Math.max(open.startedAt, end - fields.duration_ms);
    const step =
      opened?.span ??
      this.tracer.startSpan(`execute_tool ${fields.tool}`, { kind: SpanKind.INTERNAL, startTime: startedAt, attributes }, trace.setSpan(ROOT_CONTEXT, plan));
    if (opened) step.setAttributes(attributes);
    const failed = ['failed', 'refused', 'denied', 'canceled'].includes(fields.status);
    if (failed) {
      step.setAttribute('error.type', fields.status);
      step.setStatus({ code: SpanStatusCode.ERROR, message: `the step ${fields.status}` });
    }
    step.end(end);
    this.recordTool(fields.tool, failed ? fields.status : undefined, (end - startedAt) / 1000);
  }

  private end(taskId: string, task: LiveTask, fields: TraceLineOf<'task_end'>): void {
    this.live.delete(taskId);
    // A call still open when its task ended (canceled, failed mid-call) ends with it, marked so.
    const plans = [...task.plans.values()];
    for (const open of [
      task.inference?.span,
      ...plans.flatMap((p) => [...[...p.steps.values()].map((s) => s.span), p.span]),
      ...[...task.tools.values()].map((t) => t.span),
    ]) {
      if (!open) continue;
      open.setAttribute('error.type', 'task_ended');
      open.setStatus({ code: SpanStatusCode.ERROR, message: 'the task ended before this call returned' });
      open.end(now());
    }
    const state = fields.state;
    const errorType = state === 'TASK_STATE_FAILED' ? state : undefined;
    task.span.setAttributes(
      defined({ 'murmur.task.state': state, 'murmur.task.turns': task.turn, 'murmur.task.exit_status': fields.exit_status, 'error.type': errorType }),
    );
    if (errorType) task.span.setStatus({ code: SpanStatusCode.ERROR, message: fields.status ?? 'the task failed' });
    const end = now();
    task.span.end(end);
    this.metrics.invokeAgent((end - task.startedAt) / 1000, defined({ 'gen_ai.agent.name': this.agent.name, 'error.type': errorType }));
    const { workflow } = task;
    if (workflow && this.formation !== null) {
      if (errorType) {
        workflow.span.setAttribute('error.type', errorType);
        workflow.span.setStatus({ code: SpanStatusCode.ERROR, message: fields.status ?? 'the task failed' });
      }
      workflow.span.end(end);
      this.metrics.invokeWorkflow((end - workflow.startedAt) / 1000, defined({ 'gen_ai.workflow.name': this.formation, 'error.type': errorType }));
    }
  }
}

/** The traceparent (and inherited tracestate) a request made under `span` carries. */
function injected(span: Span): TraceContext | null {
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, {
    set: (c, k, v) => {
      c[k] = v;
    },
  });
  if (carrier.traceparent === undefined) return null;
  return carrier.tracestate ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate } : { traceparent: carrier.traceparent };
}
