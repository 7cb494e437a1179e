import type { JsonObject } from '@murmur/protocol';
import { allowsUrl } from '../../egress/member-egress.js';
import type { Manifest } from '../../manifest/manifest.schema.js';
import { ToolInputError } from '../tool-call.js';

/** The most steps one plan may hold (docs/plans.md, "Limits"). */
const MAX_PLAN_STEPS = 20;
const STEP_ID = /^[a-z][a-z0-9_]{0,31}$/;

/** One step of a plan, as read before anything runs; `index` counts from 1. */
export type PlanStep = { id: string; index: number } & (
  | { kind: 'tool'; tool: string; input: Record<string, unknown> }
  | { kind: 'capsule'; url: string; task: string }
);

/** A reference to an earlier step's result, as a step's strings may hold it. */
export const STEP_REFERENCE = /\{\{\s*steps\.([^}\s]*?)\s*\}\}/g;
const REFERENCE_FIELDS = ['output', 'stderr', 'exit_code'] as const;
export type ReferenceField = (typeof REFERENCE_FIELDS)[number];

/** seed 004's "Plans: Not callable from a plan step" rows. */
const NOT_FROM_A_PLAN = ['switch-driver', 'pull-artifact', 'remove-artifact', 'end-without-answer'];

const stepProperties = {
  id: { type: 'string', description: 'A name for the step, [a-z][a-z0-9_]*, unique in the plan; later steps name its result {{steps.<id>.output}}' },
  tool: { type: 'string', minLength: 1, description: 'A tool step: the name of one of your tools' },
  input: { type: 'object', description: 'A tool step: that tool’s input' },
  capsule: { type: 'string', minLength: 1, description: 'A capsule step: the URL of another door, which capabilities.network.allow lists' },
  task: { type: 'string', minLength: 1, description: 'A capsule step: the whole of what that door is told' },
};

/** What a call's input is checked against before the plan is read: its shape; the rest is the plan's own rules, in words. */
export const SUBMIT_PLAN_CHECKED_SCHEMA: JsonObject = {
  type: 'object',
  properties: { steps: { type: 'array', items: { type: 'object', properties: stepProperties, required: ['id'], additionalProperties: false } } },
  required: ['steps'],
  additionalProperties: false,
};

export const SUBMIT_PLAN_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    steps: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_PLAN_STEPS,
      description: 'The steps, run one at a time in this order; each has exactly one of tool (with input) and capsule (with task)',
      items: { type: 'object', properties: stepProperties, required: ['id'], additionalProperties: false },
    },
  },
  required: ['steps'],
  additionalProperties: false,
};

export const SUBMIT_PLAN_DESCRIPTION = [
  `Runs one plan of up to ${MAX_PLAN_STEPS} steps, one at a time in order, and returns every step's status, output and duration.`,
  'A tool step calls one of your tools with its input; a capsule step sends task to another door and waits for its answer.',
  "A string in a step may name an earlier step's result as {{steps.<id>.output}} (also .stderr and .exit_code of a shell step).",
  'A step that fails stops the plan: the steps after it are skipped.',
  'switch-driver, pull-artifact, remove-artifact, end-without-answer and submit-plan cannot be plan steps.',
].join(' ');

/** The runtime's plan guidance, part of the system prompt exactly when the tool exists (seed 004). */
export const PLAN_GUIDANCE =
  'You can run several tool calls as one plan with submit-plan: use it when you already know the calls and their order and a later call needs only an earlier call’s output, not your judgement. The runtime runs the steps one at a time, in order, and returns every step’s result at once; a failed step stops the plan. A step names an earlier step’s output as {{steps.<id>.output}}. Call a tool on its own when you need to read its result before deciding what comes next.';

/** Granted by capabilities.plan.submit: true, in an agent capsule. */
export function submitPlanGranted(manifest: Manifest): boolean {
  return manifest.inference !== undefined && manifest.capabilities.plan.submit;
}

/** Every string a step's references may sit in: the input's strings, deep, or a capsule step's task. */
function stepStrings(step: PlanStep): string[] {
  if (step.kind === 'capsule') return [step.task];
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(step.input);
  return out;
}

/**
 * Reads a plan whole before its first step runs (docs/plans.md, "Refused before anything runs"): a plan that breaks a
 * rule is refused with a ToolInputError naming the first rule broken, and nothing runs. `missing` is the dispatcher's
 * refusal of a tool this session does not have.
 */
export function readPlan(input: Record<string, unknown>, rules: { missing: (tool: string) => string | null; allow: readonly string[] }): PlanStep[] {
  const raw = input.steps as Record<string, unknown>[];
  if (raw.length === 0) throw new ToolInputError('a plan has at least one step; this one has none');
  if (raw.length > MAX_PLAN_STEPS) throw new ToolInputError(`a plan has at most ${MAX_PLAN_STEPS} steps; this one has ${raw.length}`);
  const steps: PlanStep[] = [];
  const seen = new Map<string, number>();
  raw.forEach((s, i) => {
    const index = i + 1;
    const id = String(s.id);
    if (!STEP_ID.test(id)) throw new ToolInputError(`step ${index}: id ${JSON.stringify(s.id)} is not [a-z][a-z0-9_]* of at most 32 characters`);
    if (seen.has(id)) throw new ToolInputError(`step ${index}: id "${id}" is already the id of step ${seen.get(id)}`);
    seen.set(id, index);
    const refuse = (why: string) => new ToolInputError(`step "${id}": ${why}`);
    if ((s.tool === undefined) === (s.capsule === undefined))
      throw refuse('a step has exactly one of tool (a tool call of this session) and capsule (a task for another door)');
    if ((s.tool !== undefined && s.task !== undefined) || (s.capsule !== undefined && s.input !== undefined))
      throw refuse('task goes with capsule, input with tool');
    let step: PlanStep;
    if (s.tool !== undefined) {
      const tool = String(s.tool);
      if (NOT_FROM_A_PLAN.includes(tool))
        throw refuse(
          `'${tool}' is not callable from a plan step: switch-driver, pull-artifact, remove-artifact and end-without-answer are called only on their own, never from a plan`,
        );
      if (tool === 'submit-plan') throw refuse("'submit-plan' is not callable from a plan step: a plan does not submit another plan");
      const missing = rules.missing(tool);
      if (missing !== null) throw refuse(missing);
      step = { id, index, kind: 'tool', tool, input: (s.input as Record<string, unknown> | undefined) ?? {} };
    } else {
      if (s.task === undefined) throw refuse('a capsule step needs task: the whole of what the door is told');
      step = { id, index, kind: 'capsule', url: String(s.capsule), task: String(s.task) };
      let url: URL;
      try {
        url = new URL(step.url);
      } catch {
        throw refuse('capsule is not an http:// or https:// URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('capsule is not an http:// or https:// URL');
      if (!allowsUrl(rules.allow, url))
        throw refuse(`capabilities.network.allow does not list this step's door (${url.host}), so the plan may not send it a task`);
    }
    for (const text of stepStrings(step)) {
      for (const [whole, named] of text.matchAll(STEP_REFERENCE)) {
        const [ref, field, ...rest] = named.split('.');
        if (rest.length > 0 || !(REFERENCE_FIELDS as readonly string[]).includes(field ?? ''))
          throw refuse(`${whole} names no result of a step: write {{steps.<id>.output}}, .stderr or .exit_code`);
        const at = seen.get(ref!);
        if (at === undefined || at >= index) throw refuse(`${whole} names no earlier step`);
      }
    }
    steps.push(step);
  });
  return steps;
}
