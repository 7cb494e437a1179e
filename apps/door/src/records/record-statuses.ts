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

/** How one step of a plan ends (docs/plans.md): the statuses a `plan_step` record carries. */
export const PLAN_STEP_STATUSES = ['passed', 'failed', 'refused', 'denied', 'background', 'skipped', 'canceled'] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];

/** How a plan ends: every step run, stopped at a step, or its task cancelled (a `plan_end` record). */
export const PLAN_ENDINGS = ['completed', 'stopped', 'canceled'] as const;
