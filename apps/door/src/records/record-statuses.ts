/**
 * The status lists the records carry, apart from the schema so that the door's runtime reads them without building
 * it (trace-schema.ts, whose zod objects only the readers need).
 */

/** How a member call ends (seed 004, call-member): the statuses a `member_call` record carries. */
export const MEMBER_CALL_ENDINGS = ['completed', 'no_answer', 'failed', 'canceled', 'rejected', 'timed_out', 'unreachable', 'abandoned'] as const;
export type MemberCallEnding = (typeof MEMBER_CALL_ENDINGS)[number];

/** How a delegation ends, as its child reports it in its completion (docs/formations.md, "Delegation"). */
export const DELEGATION_STATUSES = ['completed', 'failed', 'canceled', 'rejected', 'timed_out', 'lost'] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

/** The name a plan's capsule step passes the on_tool_call hooks and the records (`plan_start`, `plan_step`) under. */
export const CAPSULE_STEP_TOOL = 'capsule-step';

/** How a plan ends: every step run, stopped at a step, or its task cancelled (a `plan_end` record). */
export const PLAN_ENDINGS = ['completed', 'stopped', 'canceled'] as const;
