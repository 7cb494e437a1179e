import type { JsonObject } from '@murmur/protocol';
import type { RuntimeToolAnswer, ToolCallContext } from '../tool-call.js';

/**
 * What answers delegate-task (seed 004; docs/formations.md, "Delegation"): the session's delegations, implemented in
 * formations/ and handed to the dispatcher, so this layer knows nothing of launching a sub-capsule.
 */
export interface DelegatePort {
  /** The bare names of capabilities.spawn.allow, in its order: the schema's enum. */
  readonly capsules: readonly string[];
  /** One delegation; a refusal (nothing launched) is thrown as a ToolInputError. */
  delegate(capsule: string, task: string, ctx: ToolCallContext): Promise<RuntimeToolAnswer>;
}

export const DELEGATE_PORT = Symbol('DELEGATE_PORT');

export function delegateTaskSchema(capsules: readonly string[]): JsonObject {
  return {
    type: 'object',
    properties: {
      capsule: { type: 'string', enum: [...capsules], description: 'The sub-capsule to hand the task to' },
      task: { type: 'string', minLength: 1, description: 'The whole of what the sub-capsule is told' },
    },
    required: ['capsule', 'task'],
    additionalProperties: false,
  };
}

export function delegateTaskDescription(capsules: readonly string[]): string {
  return [
    `Hands one task to a new sub-capsule (${capsules.join(', ')}) and returns as soon as it is running and holding it, with a delegation id.`,
    'task is the whole of what the sub-capsule is told.',
    'Its outcome is not in the result: it arrives in this conversation, naming the delegation id, after you end your turn.',
  ].join(' ');
}
