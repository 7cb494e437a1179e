/**
 * The conversation a driver is sent (docs/agent-loop.md, "The conversation model"): provider-neutral, so the script
 * driver and the real providers' drivers read the same transcript. A task's transcript starts with its user
 * message and grows by one assistant message per inference call, one tool-results message per round of tool calls,
 * and the runtime's own user messages (a reply to a question, later a formation's continuation).
 */
import type { ImageMediaType } from '@murmur/protocol';
import type { ToolCallRequest, ToolOutcome } from '../tools/tool-call.js';

export type UserContent = { type: 'text'; text: string } | { type: 'image'; mediaType: ImageMediaType; base64: string };

/** A block of the model's reasoning; `signature` is kept for providers that require it back (Anthropic). */
export interface ThinkingBlock {
  text: string;
  signature?: string;
}

export interface ToolResult {
  toolCallId: string;
  name: string;
  /** What the model reads: the fenced result, and any note after the fence. */
  content: string;
  isError: boolean;
  /** The runtime's own account of the call (exit code, streams, work id): for the script driver's templates. */
  outcome: ToolOutcome;
}

export type ConversationMessage =
  /** `task`: the task's own input; `reply`: an answer to the agent's question; `runtime`: a message the runtime adds. */
  | { role: 'user'; origin: 'task' | 'reply' | 'runtime'; content: UserContent[] }
  | { role: 'assistant'; text: string; thinking: ThinkingBlock[]; toolCalls: ToolCallRequest[] }
  | { role: 'tool'; results: ToolResult[] };

/** A user message the runtime adds: a member's continuation, a governor's or a hook's text, a summary. */
export function runtimeMessage(text: string): ConversationMessage {
  return { role: 'user', origin: 'runtime', content: [{ type: 'text', text }] };
}

/** The text of a user message: its text blocks, in order. */
export function userText(message: Extract<ConversationMessage, { role: 'user' }>): string {
  return message.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}

/** The latest message matching `pick`, reading back from the end of the transcript. */
export function latest<T extends ConversationMessage>(messages: readonly ConversationMessage[], pick: (m: ConversationMessage) => m is T): T | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (pick(message)) return message;
  }
  return undefined;
}
