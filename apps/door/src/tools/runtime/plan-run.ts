import type { FetchLike } from '@murmur/client';
import type { PlanStepStatus } from '@murmur/protocol';
import { fenceToolResult, fenceUntrusted } from '../../auth/untrusted-fence.js';
import { redactHandles } from '../../peers/peer-handles.js';
import { CAPSULE_STEP_TOOL } from '../../records/record-statuses.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { OutboundTracing } from '../../egress/outbound-tracing.js';
import { shellQuote } from '../shell-quote.js';
import { readShellInput } from '../shell-tool.js';
import type { RuntimeToolAnswer, ToolCallContext, ToolCallRequest, ToolOutcome } from '../tool-call.js';
import { runCapsuleStep } from './plan-door.js';
import { type PlanStep, type ReferenceField, STEP_REFERENCE } from './submit-plan.js';

/** The most of a step's output the plan's result shows, per stream (docs/plans.md, "Limits"). */
const SHOWN_BYTES = 16 * 1024;

/** What runs a plan's tool step: the session's dispatcher, exactly as a direct call. */
export type StepDispatch = (call: ToolCallRequest, ctx: ToolCallContext) => Promise<{ outcome: ToolOutcome; refused: boolean }>;

interface PlanHost {
  dispatch: StepDispatch;
  trace: TraceWriter;
  /** How long a capsule step may wait for its door's answer. */
  deadlineSecs: number;
  /** A capsule step's requests' client spans (docs/telemetry.md). */
  tracing: OutboundTracing;
}

/** One step once it ended: its status, what the model reads of it, and the values later steps may name. */
interface StepEnd {
  status: PlanStepStatus;
  /** The fenced output, or the runtime's (or a hook's) sentence for a refused or denied step. */
  shown: string;
  values: Record<ReferenceField, string>;
  exitCode: number | null;
  doorTaskId: string | null;
}

const STOPS: readonly PlanStepStatus[] = ['failed', 'refused', 'denied'];
const trimmed = (text: string) => text.replace(/\n+$/, '');

function cut(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length <= SHOWN_BYTES ? text : `${bytes.subarray(0, SHOWN_BYTES).toString('utf8')}\n[… ${bytes.length - SHOWN_BYTES} bytes cut]`;
}

/** A step's references filled in from earlier steps' values; inside a top-level `command` each value is one shell word. */
function fill(step: PlanStep, values: ReadonlyMap<string, Record<ReferenceField, string>>): { input: Record<string, unknown>; task: string | null } {
  const render = (text: string, quote: (v: string) => string) =>
    text.replace(STEP_REFERENCE, (_whole, named: string) => {
      const [id, field] = named.split('.') as [string, ReferenceField];
      return quote(values.get(id)![field]);
    });
  if (step.kind === 'capsule') {
    const task = render(step.task, (v) => v);
    return { input: { capsule: step.url, task }, task };
  }
  const deep = (value: unknown, isCommand: boolean): unknown => {
    if (typeof value === 'string') return render(value, isCommand ? shellQuote : (v) => v);
    if (Array.isArray(value)) return value.map((v) => deep(v, false));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v, false)]));
    return value;
  };
  return { input: Object.fromEntries(Object.entries(step.input).map(([k, v]) => [k, deep(v, k === 'command')])), task: null };
}

/** A tool step's result as the plan shows it: the direct call's content, rebuilt with its streams cut when it is too long. */
function shownOf(tool: string, input: Record<string, unknown>, outcome: ToolOutcome): string {
  if (Buffer.byteLength(outcome.content) <= SHOWN_BYTES) return outcome.content;
  if (outcome.exitCode === null) return fenceToolResult(tool, cut(outcome.stdout));
  return fenceToolResult(
    tool,
    `$ ${readShellInput(tool, input).shown}\nExit code: ${outcome.exitCode}\nStdout:\n${cut(outcome.stdout)}\nStderr:\n${cut(outcome.stderr)}\n`,
  );
}

function toolStatus(outcome: ToolOutcome): PlanStepStatus {
  if (outcome.workId !== null) return 'background';
  if (outcome.exitCode !== null) return outcome.exitCode === 0 ? 'passed' : 'failed';
  return outcome.isError ? 'failed' : 'passed';
}

const noValues = (output = ''): Record<ReferenceField, string> => ({ output, stderr: '', exit_code: '' });

async function runStep(
  step: PlanStep,
  stepCall: ToolCallRequest,
  task: string | null,
  ctx: ToolCallContext,
  host: PlanHost,
  planCallId: string,
): Promise<StepEnd> {
  const denied = ctx.decide ? await ctx.decide(stepCall) : null;
  if (denied !== null) return { status: 'denied', shown: denied, values: noValues(), exitCode: null, doorTaskId: null };
  if (step.kind === 'capsule') {
    const traced = (fetch: FetchLike) =>
      host.tracing.a2a({ taskId: ctx.taskId, toolCallId: planCallId }, fetch, { planCallId, stepId: step.id, tool: CAPSULE_STEP_TOOL });
    const end = await runCapsuleStep({
      url: step.url,
      task: task!,
      trust: ctx.trust ?? 'trusted',
      deadlineSecs: host.deadlineSecs,
      signal: ctx.signal,
      traced,
    });
    return {
      status: end.status,
      shown: fenceUntrusted(`capsule:${step.id}`, cut(end.output)),
      values: noValues(trimmed(end.output)),
      exitCode: null,
      doorTaskId: end.doorTaskId,
    };
  }
  // A step is never itself a decision point again, nor can it ask for one.
  const { outcome, refused } = await host.dispatch(stepCall, { ...ctx, decide: undefined });
  if (refused)
    return { status: 'refused', shown: outcome.stderr !== '' ? outcome.stderr : outcome.content, values: noValues(), exitCode: null, doorTaskId: null };
  return {
    status: toolStatus(outcome),
    shown: shownOf(step.tool, stepCall.input, outcome),
    values: {
      output: trimmed(outcome.stdout),
      stderr: outcome.exitCode === null ? '' : trimmed(outcome.stderr),
      exit_code: outcome.exitCode === null ? '' : String(outcome.exitCode),
    },
    exitCode: outcome.exitCode,
    doorTaskId: null,
  };
}

function tally(statuses: readonly PlanStepStatus[]): string {
  const order: [PlanStepStatus, string][] = [
    ['passed', 'passed'],
    ['background', 'in the background'],
    ['failed', 'failed'],
    ['refused', 'refused'],
    ['denied', 'denied'],
    ['skipped', 'skipped'],
  ];
  return order
    .map(([status, words]) => [statuses.filter((s) => s === status).length, words] as const)
    .filter(([n]) => n > 0)
    .map(([n, words]) => `${n} ${words}`)
    .join(', ');
}

/**
 * Runs a plan read by readPlan (docs/plans.md): its steps one at a time, in order, each past the on_tool_call decision
 * point and through the dispatcher (a tool step) or to its door (a capsule step); a failed, refused or denied step
 * stops it, the rest skipped. A cancel of the task ends it at once: the records say so and the cancel is rethrown.
 */
export async function runPlan(steps: readonly PlanStep[], planCallId: string, ctx: ToolCallContext, host: PlanHost): Promise<RuntimeToolAnswer> {
  const { trace } = host;
  const base = { task_id: ctx.taskId, tool_call_id: planCallId };
  const toolOf = (step: PlanStep) => (step.kind === 'tool' ? step.tool : CAPSULE_STEP_TOOL);
  const started = performance.now();
  const elapsed = (since: number) => Math.round(performance.now() - since);
  trace.write('plan_start', { ...base, steps: steps.map((s) => ({ id: s.id, tool: toolOf(s) })) });
  const values = new Map<string, Record<ReferenceField, string>>();
  const statuses: PlanStepStatus[] = [];
  const lines: string[] = [];
  const header = (step: PlanStep) => `[submit-plan] step ${step.index} of ${steps.length}, "${step.id}" (${toolOf(step)})`;
  const record = (
    step: PlanStep,
    status: PlanStepStatus,
    fields: { durationMs: number; exitCode?: number | null; input?: unknown; output?: string; doorTaskId?: string | null },
  ) =>
    trace.write('plan_step', {
      ...base,
      step: step.id,
      index: step.index,
      tool: toolOf(step),
      status,
      duration_ms: fields.durationMs,
      exit_code: fields.exitCode ?? null,
      input: redactHandles(fields.input ?? null),
      output: redactHandles(fields.output ?? ''),
      door_task_id: fields.doorTaskId ?? null,
    });
  const counts = () => ({
    passed: statuses.filter((s) => s === 'passed' || s === 'background').length,
    failed: statuses.filter((s) => STOPS.includes(s)).length,
    skipped: statuses.filter((s) => s === 'skipped').length,
  });
  let stoppedBy: PlanStep | null = null;
  for (const step of steps) {
    if (stoppedBy !== null) {
      statuses.push('skipped');
      lines.push(`${header(step)}: skipped: step "${stoppedBy.id}" ${statuses[stoppedBy.index - 1]}`);
      record(step, 'skipped', { durationMs: 0 });
      continue;
    }
    const stepStarted = performance.now();
    const { input, task } = fill(step, values);
    const stepCall: ToolCallRequest = { id: `${planCallId}.${step.id}`, name: toolOf(step), input };
    let end: StepEnd;
    try {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      end = await runStep(step, stepCall, task, ctx, host, planCallId);
    } catch (error) {
      if (ctx.signal.aborted) {
        record(step, 'canceled', { durationMs: elapsed(stepStarted), input });
        for (const later of steps.slice(step.index)) record(later, 'skipped', { durationMs: 0 });
        trace.write('plan_end', { ...base, status: 'canceled', ...counts(), skipped: steps.length - step.index, duration_ms: elapsed(started) });
      }
      throw error;
    }
    const durationMs = elapsed(stepStarted);
    statuses.push(end.status);
    values.set(step.id, end.values);
    const sentence = end.status === 'refused' || end.status === 'denied';
    lines.push(
      sentence ? `${header(step)}: ${end.status} in ${durationMs} ms: ${end.shown}` : `${header(step)}: ${end.status} in ${durationMs} ms\n${end.shown}`,
    );
    record(step, end.status, { durationMs, exitCode: end.exitCode, input, output: end.shown, doorTaskId: end.doorTaskId });
    if (STOPS.includes(end.status)) stoppedBy = step;
  }
  const durationMs = elapsed(started);
  trace.write('plan_end', { ...base, status: stoppedBy === null ? 'completed' : 'stopped', ...counts(), duration_ms: durationMs });
  lines.push(
    stoppedBy === null
      ? `[submit-plan] The plan ran all ${steps.length} step${steps.length === 1 ? '' : 's'}: ${tally(statuses)}, in ${durationMs} ms.`
      : `[submit-plan] The plan stopped at step ${stoppedBy.index} of ${steps.length}: ${tally(statuses)}, in ${durationMs} ms.`,
  );
  return { data: lines.join('\n'), failed: stoppedBy !== null, fenced: true };
}
