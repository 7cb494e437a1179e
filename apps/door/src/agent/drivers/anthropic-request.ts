/**
 * The conversation as an Anthropic messages request (docs/drivers.md, "Anthropic"): the system prompt apart; user
 * text and base64 image blocks; assistant thinking (signed blocks only), text and tool_use blocks; tool results as
 * user tool_result blocks; consecutive same-role messages merged, as the API requires alternation.
 */
import type { ConversationMessage, ThinkingBlock } from '../conversation.js';
import type { ToolSpec } from '../driver.js';

type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean };

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  system: string;
  messages: AnthropicMessage[];
  stream: true;
  tools?: { name: string; description: string; input_schema: object }[];
  thinking?: { type: 'enabled'; budget_tokens: number };
}

/** Tool use ids are `[A-Za-z0-9_-]`; another provider's id is rewritten the same way in the call and its result. */
function toolUseId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_') || 'call';
}

function anthropicMessages(messages: readonly ConversationMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: AnthropicBlock[]) => {
    if (content.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        push(
          'user',
          message.content.map(
            (c): AnthropicBlock =>
              c.type === 'text' ? { type: 'text', text: c.text } : { type: 'image', source: { type: 'base64', media_type: c.mediaType, data: c.base64 } },
          ),
        );
        break;
      case 'assistant':
        push('assistant', [
          ...message.thinking
            .filter((b): b is Required<ThinkingBlock> => b.signature !== undefined)
            .map((b): AnthropicBlock => ({ type: 'thinking', thinking: b.text, signature: b.signature })),
          ...(message.text !== '' ? [{ type: 'text' as const, text: message.text }] : []),
          ...message.toolCalls.map((call): AnthropicBlock => ({ type: 'tool_use', id: toolUseId(call.id), name: call.name, input: call.input })),
        ]);
        break;
      case 'tool':
        push(
          'user',
          message.results.map((r): AnthropicBlock => ({ type: 'tool_result', tool_use_id: toolUseId(r.toolCallId), content: r.content, is_error: r.isError })),
        );
        break;
      default: {
        const unreachable: never = message;
        throw new Error(`unknown conversation message ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return out;
}

export function anthropicRequest(opts: {
  model: string;
  maxOutputTokens: number;
  thinkingBudgetTokens: number | null;
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
}): AnthropicRequest {
  return {
    model: opts.model,
    max_tokens: opts.maxOutputTokens,
    system: opts.system,
    messages: anthropicMessages(opts.messages),
    stream: true,
    ...(opts.tools.length > 0 ? { tools: opts.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })) } : {}),
    ...(opts.thinkingBudgetTokens !== null ? { thinking: { type: 'enabled' as const, budget_tokens: opts.thinkingBudgetTokens } } : {}),
  };
}
