import type { JsonObject } from '@murmur/protocol';
import type { RuntimeToolAnswer, ToolCallContext } from '../tool-call.js';

/**
 * What answers call-member (seed 004, "call-member"): the formation's member calls, implemented in formations/ and
 * handed to the dispatcher, so this layer knows nothing of the outbound caller.
 */
export interface MemberCallPort {
  /** The members this one may call, in roster order: the schema's enum. */
  readonly callees: readonly string[];
  /** One call; a refusal (nothing sent) is thrown as a ToolInputError. */
  call(member: string, task: string, ctx: ToolCallContext): Promise<RuntimeToolAnswer>;
  /** end-without-answer: accepted, or refused with a ToolInputError (seed 004's texts, in its order). */
  endWithoutAnswer(reason: string, ctx: ToolCallContext): RuntimeToolAnswer;
}

export const END_WITHOUT_ANSWER_SCHEMA: JsonObject = {
  type: 'object',
  properties: { reason: { type: 'string', description: 'Why you have no answer to give, in a sentence' } },
  required: ['reason'],
  additionalProperties: false,
};

/**
 * What a call's input is checked against before end-without-answer runs: its schema less `required`. A missing
 * reason is refused by the tool itself, as a blank one is, after the checks seed 004 makes first ("reason is
 * missing or blank": 'end-without-answer' needs a reason: …), not as the schema's `reason is required`.
 */
export const END_WITHOUT_ANSWER_CHECKED_SCHEMA: JsonObject = (({ required: _required, ...checked }) => checked)(END_WITHOUT_ANSWER_SCHEMA);

export const END_WITHOUT_ANSWER_DESCRIPTION = [
  'Ends the task another formation member sent you without an answer. Use it instead of replying when you have no answer to give, usually because a member you called gave you none.',
  'The reason is passed to the member that sent the task: the runtime tells that member plainly that no answer came, and names each member you called that gave none.',
  'It is refused while a call you made is still out, and for a task no formation member sent.',
].join(' ');

export const MEMBER_CALL_PORT = Symbol('MEMBER_CALL_PORT');

export function callMemberSchema(callees: readonly string[]): JsonObject {
  return {
    type: 'object',
    properties: {
      member: { type: 'string', enum: [...callees], description: 'The formation member to hand the task to' },
      task: { type: 'string', minLength: 1, description: 'The whole of what the member is told' },
    },
    required: ['member', 'task'],
    additionalProperties: false,
  };
}

export function callMemberDescription(callees: readonly string[]): string {
  return [
    `Hands one task to another formation member (${callees.join(', ')}) and returns at once with a call id.`,
    'task is the whole of what the member is told, so any file content it needs goes in the task text.',
    'The result is started when the member holds the task, or busy when it has no room; then the runtime keeps offering the task until the member takes it or the call’s deadline passes.',
    'The member’s answer is not in the result: it arrives in this conversation, naming the call id, after you end your turn.',
    'A second call to a member before its answer has arrived is refused.',
  ].join(' ');
}
