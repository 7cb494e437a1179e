/**
 * The conversation as an OpenAI chat-completions request (docs/drivers.md, "OpenAI-compatible"): system first,
 * user text and images (data URLs), assistant text with its tool calls, one `tool` message per result. Reasoning is
 * never sent back: the API has no field for it.
 */
import type { ConversationMessage } from '../conversation.js';
import type { ToolSpec } from '../driver.js';

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

type OpenAiMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAiRequest {
  model: string;
  messages: OpenAiMessage[];
  stream: true;
  stream_options: { include_usage: true };
  max_tokens: number;
  tools?: { type: 'function'; function: { name: string; description: string; parameters: object } }[];
}

function openAiMessages(system: string, messages: readonly ConversationMessage[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [{ role: 'system', content: system }];
  for (const message of messages) {
    switch (message.role) {
      case 'user': {
        const onlyText = message.content.every((c) => c.type === 'text');
        out.push({
          role: 'user',
          content: onlyText
            ? message.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
            : message.content.map(
                (c): ContentPart =>
                  c.type === 'text' ? { type: 'text', text: c.text } : { type: 'image_url', image_url: { url: `data:${c.mediaType};base64,${c.base64}` } },
              ),
        });
        break;
      }
      case 'assistant':
        out.push({
          role: 'assistant',
          content: message.text === '' && message.toolCalls.length > 0 ? null : message.text,
          ...(message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: JSON.stringify(call.input) },
                })),
              }
            : {}),
        });
        break;
      case 'tool':
        for (const result of message.results) out.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
        break;
      default: {
        const unreachable: never = message;
        throw new Error(`unknown conversation message ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return out;
}

export function openAiRequest(opts: {
  model: string;
  maxOutputTokens: number;
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
}): OpenAiRequest {
  return {
    model: opts.model,
    messages: openAiMessages(opts.system, opts.messages),
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: opts.maxOutputTokens,
    // Some servers refuse an empty tools list: it is left out.
    ...(opts.tools.length > 0
      ? { tools: opts.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.inputSchema } })) }
      : {}),
  };
}
