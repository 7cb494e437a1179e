import type { JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { RuntimeToolAnswer, ToolCallContext } from '../tool-call.js';

export const REQUEST_INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: { prompt: { type: 'string', minLength: 1, description: 'The question, as the person who sent the task reads it' } },
  required: ['prompt'],
};

/** The tool's description: when to ask, what the result is, and what a wait that times out does. */
export function requestInputDescription(timeoutSecs: number): string {
  const bound =
    timeoutSecs === 0
      ? 'The task waits for the reply without a time limit.'
      : `A reply that does not come within ${timeoutSecs} seconds ends the wait: this call then fails and the task goes on without the answer.`;
  return `Asks the person who sent the task a question and waits for the reply, which is this call's result. Use it only when you cannot go on without an answer only they can give (a choice, a fact, a credential); meanwhile the task waits in input-required. ${bound}`;
}

/** Granted by capabilities.request_input: true, in an agent capsule. */
export function requestInputGranted(manifest: Manifest): boolean {
  return manifest.inference !== undefined && manifest.capabilities.request_input;
}

/** Pauses the running task with the prompt; the reply is the result, a timeout the tool's failure (seed 001, "status"). */
export async function runRequestInput(input: Record<string, unknown>, ctx: ToolCallContext, timeoutSecs: number): Promise<RuntimeToolAnswer> {
  if (!ctx.askUser) return { data: "'request-input' is answered only while a task runs; this session is running none", failed: true };
  const outcome = await ctx.askUser(String(input.prompt));
  if (outcome.kind === 'reply') return { data: outcome.text };
  return { data: inputTimeoutText(timeoutSecs), failed: true };
}

/** What the model reads when its question got no reply in time. */
export const inputTimeoutText = (timeoutSecs: number): string => `no reply came within ${timeoutSecs}s: the question was withdrawn; go on without the answer`;
