import { PLAN_STEP_STATUSES, TASK_STATES } from '@murmur/protocol';
import * as z from 'zod';
import { DELEGATION_STATUSES, MEMBER_CALL_ENDINGS, PLAN_ENDINGS } from './record-statuses.js';

/**
 * trace.jsonl's records, one schema per record type (docs/records.md): the writer takes exactly these fields
 * (TraceWriter.write), the line reader decodes a line into one member of the TraceLine union, and every reader
 * switches over that union. A field renamed here fails the build at every write site and every reader.
 */

const taskState = z.enum(TASK_STATES);
const count = z.number();
const id = z.string();
const jsonValue = z.unknown();

/** A usage report as the agent loop records it (usage/usage-ledger.ts's Usage), or that the provider sent none. */
const usage = z.union([
  z.object({ input: count.optional(), output: count.optional(), cached: count.optional(), cacheWrite: count.optional(), reasoning: count.optional() }),
  z.literal('unreported'),
]);

const memberCallEnding = z.enum(MEMBER_CALL_ENDINGS);
const delegationStatus = z.enum(DELEGATION_STATUSES);

/** Who changed a setting: the agent presents no credential (seed 004); the operator's control token is named by its id. */
const BY_AGENT = { principal: z.literal('agent') };
const BY_OPERATOR = { principal: z.literal('operator'), token_id: id };

/** An artifact as its records name it: what it is and where it was found. */
const artifactFields = {
  artifact: z.string(),
  version: z.string(),
  digest: z.string(),
  runtime: z.enum(['tool', 'skill']),
  implementation: z.enum(['native', 'wasm']).nullable(),
  tool_name: z.string(),
  fetched_from: z.string(),
};

export const TRACE_SCHEMAS = {
  // The session.
  session_start: z.object({
    session_id: id,
    name: z.string(),
    version: z.string(),
    url: z.string(),
    resumed: z.boolean(),
    tools_declared: z.array(z.string()),
    sandbox: z.enum(['bwrap', 'off', 'no-shell']),
  }),
  session_end: z.object({ session_id: id }),
  session_deadline: z.object({ session_id: id, at: z.string() }),
  /** Commands a crashed run left: each recorded process group (tools/process-registry.ts), and whether reopening killed it. */
  commands_lost: z.object({
    commands: z.array(
      z.object({
        pgid: count,
        startTime: z.string(),
        binary: z.string(),
        command: z.string(),
        taskId: id,
        workId: id.nullable(),
        startedAtMs: count,
        killed_on_reopen: z.boolean(),
      }),
    ),
  }),

  // A task's life (tasks/).
  task_start: z.object({
    task_id: id,
    context_id: id,
    message_id: id,
    origin: z.string(),
    trust: z.enum(['trusted', 'untrusted']),
    text_chars: count,
    text: z.string(),
    references: z.array(id),
    attachments: z.array(z.object({ part_index: count, media_type: z.string(), bytes: count })),
    traceparent: z.string().optional(),
    tracestate: z.string().optional(),
  }),
  task_rejected: z.object({ task_id: id, context_id: id, reason: z.string() }),
  task_settled_on_reopen: z.object({ task_id: id, state: z.literal('TASK_STATE_FAILED') }),
  task_input_required: z.object({ task_id: id, prompt: z.string() }),
  task_resumed: z.object({ task_id: id, reply_chars: count, reply: z.string() }),
  /** No reply came within lifecycle.input_timeout_secs: the wait ended and the task went back to work. */
  task_input_timeout: z.object({ task_id: id, waited_secs: count }),
  task_continued: z.object({ task_id: id, answers: count, delegations: count }),
  task_end: z.object({
    task_id: id,
    state: taskState,
    status: z.string().nullable(),
    running_commands: z.array(z.object({ workId: id, binary: z.string(), command: z.string(), runningMs: count })),
    exit_status: z.literal('no_answer').optional(),
  }),
  task_result: z.object({ task_id: id, chars: count }),

  // The agent loop (agent/).
  inference: z.object({
    task_id: id,
    turn: count,
    driver: z.string(),
    model: z.string().optional(),
    /** The choice's driver kind (`script`, `anthropic`, `openai-compatible`) and its output cap (docs/telemetry.md). */
    driver_kind: z.string().optional(),
    max_tokens: count.optional(),
    /** The provider's completion id and the model it says answered, when its stream named them. */
    response_id: z.string().optional(),
    response_model: z.string().optional(),
    /** `failed` for a call that ended in a driver failure, which `failure` states (docs/agent-loop.md). */
    stop_reason: z.string(),
    failure: z.string().optional(),
    usage,
    tool_calls: count,
    /** The call's wall time, and from its start to the first streamed chunk (null: nothing streamed). */
    duration_ms: count,
    first_token_ms: count.nullable(),
  }),
  inference_retry: z.object({ task_id: id, turn: count, driver: z.string(), attempt: count, reason: z.string(), delay_ms: count }),
  /** An on_tool_call hook denied a call: it ran nothing (docs/agent-loop.md, "Hooks"). */
  tool_call_denied: z.object({ task_id: id, tool: z.string(), tool_call_id: id, hook: z.string(), reason: z.string() }),
  /** An on_task_end hook's artifact, as its frame carries it. */
  hook_artifact: z.object({ task_id: id, hook: z.string(), content: z.string() }),
  /** A hook that had no say: it failed, timed out, answered off its form, or reopened past the limit. */
  hook_failed: z.object({ task_id: id, hook: z.string(), reason: z.string() }),
  /** An on_task_end hook reopened the task: `attempt` is the new attempt's number. */
  task_reopened: z.object({ task_id: id, hook: z.string(), attempt: count }),
  /** A call the spend ceilings did not let through (docs/agent-loop.md, "Spend ceilings"). */
  spend_refused: z.object({ task_id: id, turn: count, ceiling: z.enum(['session', 'machine']), limit: count, spent: count, projected: count }),
  /** lifecycle.keep_working sent its message: the task goes on (docs/agent-loop.md, "keep_working"). */
  keep_working: z.object({ task_id: id, turn: count, used: count, left: count }),
  /** One run of lifecycle.done_check's command (docs/agent-loop.md, "done_check"). */
  done_check: z.object({
    task_id: id,
    turn: count,
    exit_code: count.nullable(),
    timed_out: z.boolean(),
    duration_ms: count,
    outcome: z.enum(['passed', 'sent_back', 'exhausted']),
    used: count,
    left: count,
  }),
  /** The conversation was compacted before a call (docs/agent-loop.md, "Compaction"); `failed` when it could not be. */
  compaction: z.object({
    task_id: id,
    turn: count,
    tokens_before: count,
    tokens_before_source: z.enum(['actual', 'estimate']),
    tokens_after: count,
    budget_tokens: count,
    threshold: count,
    elided_results: count,
    summarized_messages: count,
    /** The compaction's wall time in ms (to 0.01), its summary call included. */
    duration_ms: count,
    failed: z.string().optional(),
  }),
  conversation_trimmed: z.object({ task_id: id, turn: count, elided_chars: count, budget_chars: count }),
  tool_call: z.object({
    task_id: id,
    tool: z.string(),
    tool_call_id: id,
    status: z.enum(['passed', 'error']),
    duration_ms: count.nullable(),
    exit_code: count.nullable(),
    input: jsonValue,
    output: z.string(),
    work_id: id.optional(),
  }),
  /** A skill's call (docs/artifacts.md, "Skills"): tool_call's fields, the skill for the tool, and its artifact. */
  skill_call: z.object({
    task_id: id,
    skill: z.string(),
    artifact: z.string(),
    tool_call_id: id,
    status: z.enum(['passed', 'error']),
    duration_ms: count.nullable(),
    exit_code: z.null(),
    input: jsonValue,
    output: z.string(),
  }),
  deadline_notice: z.object({ task_id: id, tool_call_id: id, at: z.string(), left_secs: count }),
  command_result_task: z.object({ task_id: id, work_id: id, state: taskState }),
  // A setting changed by the agent (switch-driver, inside a task) or by the operator (the control surface, with its
  // token's id and outside any task): docs/control.md, "Records".
  control_applied: z.union([
    z.object({ ...BY_AGENT, setting: z.string(), value: z.string(), task_id: id, turn: count }),
    z.object({ ...BY_OPERATOR, setting: z.string(), value: z.string(), task_id: id, turn: count }),
  ]),
  control_refused: z.union([
    z.object({ ...BY_AGENT, setting: z.string(), value: jsonValue, reason: z.string(), task_id: id }),
    z.object({ ...BY_OPERATOR, setting: z.string(), value: jsonValue, reason: z.string() }),
  ]),
  control_change: z.union([
    z.object({ ...BY_AGENT, setting: z.string(), from: z.string(), to: z.string(), task_id: id }),
    z.object({ ...BY_OPERATOR, setting: z.string(), from: z.string(), to: z.string() }),
  ]),

  // Runtime tools (tools/runtime/).
  background_command: z.object({
    task_id: id,
    work_id: id,
    operation: z.enum(['status', 'wait', 'stop']),
    state: z.enum(['running', 'exited', 'stopped']),
    exit_code: count.nullable(),
    waited_secs: count.optional(),
    phase: z.literal('background_wait').optional(),
  }),
  // submit-plan (docs/plans.md, "Records"): the plan is one tool call, its steps these records.
  plan_start: z.object({ task_id: id, tool_call_id: id, steps: z.array(z.object({ id, tool: z.string() })) }),
  plan_step: z.object({
    task_id: id,
    tool_call_id: id,
    step: id,
    index: count,
    tool: z.string(),
    status: z.enum(PLAN_STEP_STATUSES),
    duration_ms: count,
    exit_code: count.nullable(),
    input: jsonValue,
    output: z.string(),
    door_task_id: id.nullable(),
  }),
  plan_end: z.object({ task_id: id, tool_call_id: id, status: z.enum(PLAN_ENDINGS), passed: count, failed: count, skipped: count, duration_ms: count }),
  /** The object session-status returned (seed 004), as the model read it; no reader takes it apart. */
  session_status: z.object({ task_id: id, status: jsonValue }),
  peer_handle_mint: z.object({ task_id: id, handle_id: id, audience: z.string(), path: z.string(), expires_at: z.string(), uses: count }),
  peer_handle_redeem: z.object({ handle_id: id, audience: z.string(), size: count, uses_left: count }),
  peer_handle_refused: z.object({ handle_id: id, reason: z.string(), audience: z.string().nullable() }),
  peer_file_fetched: z.object({ task_id: id, handle_id: id.nullable(), path: z.string(), size: count }),

  // Harnesses (agent/harness/, docs/harness.md): one start and one end a run; a forget of a context's session.
  harness_start: z.object({
    task_id: id,
    context_id: id,
    harness: z.string(),
    model: z.string(),
    session_mode: z.enum(['new', 'resume']),
    /** Known at the start for a resume and for a session id the runtime mints; null until a new Codex thread is announced. */
    harness_session_id: id.nullable(),
  }),
  harness_end: z.object({
    task_id: id,
    harness: z.string(),
    harness_session_id: id.nullable(),
    outcome: z.enum(['answered', 'failed', 'stopped']),
    exit_code: count.nullable(),
    /** The turns the harness closed in this run. */
    turns: count,
    failure: z.string().optional(),
  }),
  harness_session_forgotten: z.object({ task_id: id, context_id: id, harness_session_id: id, requested_by: z.enum(['a2a', 'cli']) }),
  // Artifacts (docs/artifacts.md, "Records"): what the session staged and pulled, and when its tool list changed.
  artifact_staged: z.object(artifactFields),
  artifact_pulled: z.object({ task_id: id, tool_call_id: id, ...artifactFields }),
  tools_refreshed: z.object({ task_id: id, turn: count, trigger: z.literal('agent'), added: z.array(z.string()), removed: z.array(z.string()) }),

  // Formations (formations/): member calls and delegations.
  member_call_busy: z.object({ task_id: id, call_id: id, member: z.string(), offer: count }),
  member_call_start: z.object({ task_id: id, call_id: id, member: z.string(), member_task_id: id, offers: count }),
  member_call: z.object({
    task_id: id,
    call_id: id,
    member: z.string(),
    status: memberCallEnding,
    /** An abandoned call's sentence, delivered nowhere else. */
    output: z.string().optional(),
    member_task_id: id.nullable(),
    offers: count,
    elapsed_ms: count,
    delivered: z.boolean(),
  }),
  delegation_start: z.object({ task_id: id, delegation_id: id, capsule: z.string(), child_session_id: id, child_task_id: id, child_workdir: z.string() }),
  delegation: z.object({ task_id: id, delegation_id: id, capsule: z.string(), status: delegationStatus, child_session_id: id }),
  delegation_completion: z.object({ delegation_id: id, task_id: id, status: delegationStatus, delivered: z.boolean(), delivery_error: z.string().nullable() }),
} as const;

/** Every record type trace.jsonl holds. */
export type TraceType = keyof typeof TRACE_SCHEMAS;

/** The fields a record of each type carries, as its writer passes them. */
export type TraceFields = { [K in TraceType]: z.input<(typeof TRACE_SCHEMAS)[K]> };

/** One record as its writer hands it over: a type and exactly that type's fields. */
export type TraceEntry = { [K in TraceType]: readonly [type: K, fields: TraceFields[K]] }[TraceType];

/** One line of trace.jsonl, decoded: `ts` (ISO 8601), `type`, and the fields of that type. Switch on `type`. */
export type TraceLine = { [K in TraceType]: { ts: string; type: K } & z.output<(typeof TRACE_SCHEMAS)[K]> }[TraceType];

/** The decoded line of one type. */
export type TraceLineOf<K extends TraceType> = Extract<TraceLine, { type: K }>;

export const TRACE_TYPES = Object.keys(TRACE_SCHEMAS) as TraceType[];

/** Whether `type` names a record type of this schema. */
export function isTraceType(type: unknown): type is TraceType {
  return typeof type === 'string' && Object.hasOwn(TRACE_SCHEMAS, type);
}
