/**
 * The GenAI semantic conventions' names for what the door runs (docs/telemetry.md, "Decisions"): a driver kind's
 * `gen_ai.provider.name`, and every tool's `gen_ai.tool.type`.
 */

/**
 * `anthropic` and `openai` are the convention's well-known values; an openai-compatible choice speaks OpenAI's API
 * whatever serves it, so it is `openai` (the convention: "based on the instrumentation's best knowledge"; the
 * request and response model say which model answered). The script driver calls no provider: `murmur.script`.
 */
export function providerName(driverKind: string | undefined): string {
  switch (driverKind) {
    case 'anthropic':
      return 'anthropic';
    case 'openai-compatible':
      return 'openai';
    case 'script':
      return 'murmur.script';
    default:
      return '_OTHER';
  }
}

/** Every tool the model calls is run by the door on its behalf, the convention's `function` (client-side) kind. */
export const TOOL_TYPE = 'function';

/**
 * A plan's `gen_ai.workflow.name`. The convention wants a low-cardinality name the application gives its workflow;
 * a plan has none of its own (its steps are the model's), so every plan is the one workflow the runtime's
 * submit-plan tool runs, named after it.
 */
export const PLAN_WORKFLOW = 'submit-plan';
