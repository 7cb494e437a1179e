import type { JsonObject, Message } from '@murmur/protocol';
import type { Caller } from '../auth/caller.js';

/**
 * Where a completion goes once the pipeline has checked its address (seed 000, "Completion errors"): the session's
 * delegations, implemented in formations/ and handed to the pipeline, so this layer knows nothing of them.
 */
/** The pipeline's completion sink: the session's delegations, bound in app.module.ts; null without capabilities.spawn.allow. */
export const COMPLETION_SINK = Symbol('COMPLETION_SINK');

export interface CompletionSink {
  /** Whether a task here waits for this delegation, and this caller may answer it (docs/formations.md, "Delegation"). */
  awaits(delegationId: string, caller: Caller): boolean;
  /** Takes the completion's params: the acknowledgement seed 000 shows ("Answers"), or null once it is no longer awaited. */
  deliver(delegationId: string, params: JsonObject): Message | null;
}
