/**
 * Reads a chat-completions stream (docs/drivers.md, "OpenAI-compatible"): content deltas → text chunks, reasoning
 * deltas → thinking chunks, tool-call pieces assembled by index, the finish reason, the usage chunk, `[DONE]`.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import type { DriverChunk, DriverResponse, StopReason, Usage } from '../driver.js';
import { ProviderFailure, redact } from './provider-failure.js';
import type { StreamConsumer } from './stream-consumer.js';
import { parseToolArguments } from './tool-arguments.js';

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface CompletionChunk {
  id?: string;
  model?: string;
  choices?: {
    delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; refusal?: string | null; tool_calls?: ChunkToolCall[] };
    finish_reason?: string | null;
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
  error?: { message?: string; type?: string } | string;
}

export class OpenAiStream implements StreamConsumer {
  private responseId: string | undefined;
  private responseModel: string | undefined;
  complete = false;
  streamed = false;
  private events = 0;
  private text = '';
  private thinking = '';
  private refusal = '';
  private finish: string | null = null;
  private usage: Usage | null = null;
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();

  constructor(
    private readonly onChunk: (chunk: DriverChunk) => void,
    private readonly key: string | null,
  ) {}

  event(message: EventSourceMessage): void {
    this.events += 1;
    if (message.data === '[DONE]') {
      this.complete = true;
      return;
    }
    let chunk: CompletionChunk;
    try {
      chunk = JSON.parse(message.data) as CompletionChunk;
    } catch {
      throw new ProviderFailure('malformed', `the provider's stream could not be read: event ${this.events} is not JSON`);
    }
    if (chunk === null || typeof chunk !== 'object')
      throw new ProviderFailure('malformed', `the provider's stream could not be read: event ${this.events} is not an object`);
    if (chunk.error !== undefined) {
      const error = typeof chunk.error === 'string' ? { message: chunk.error } : chunk.error;
      const type = typeof error.type === 'string' ? error.type : undefined;
      const text = typeof error.message === 'string' ? error.message : 'an error';
      throw new ProviderFailure('stream-error', `${redact(type ?? 'error', this.key)}: ${redact(text, this.key)}`, type ? { errorType: type } : {});
    }
    if (chunk.usage) this.usage = usageOf(chunk.usage);
    if (typeof chunk.id === 'string' && chunk.id !== '') this.responseId = chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.responseModel = chunk.model;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      this.thinking += reasoning;
      this.streamed = true;
      this.onChunk({ kind: 'thinking', text: reasoning });
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.text += delta.content;
      this.streamed = true;
      this.onChunk({ kind: 'text', text: delta.content });
    }
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    for (const piece of delta.tool_calls ?? []) {
      const index = piece.index ?? this.calls.size;
      const call = this.calls.get(index) ?? { id: '', name: '', args: '' };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.args += piece.function.arguments;
      this.calls.set(index, call);
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  response(): DriverResponse {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => {
        const id = call.id || `call_${index}`;
        return { id, name: call.name, input: parseToolArguments(id, call.name, call.args) };
      });
    return {
      text: this.text,
      thinking: this.thinking === '' ? [] : [{ text: this.thinking }],
      toolCalls,
      stop: this.stop(toolCalls.length > 0),
      usage: this.usage,
      ...(this.responseId === undefined ? {} : { responseId: this.responseId }),
      ...(this.responseModel === undefined ? {} : { responseModel: this.responseModel }),
    };
  }

  private stop(hasCalls: boolean): StopReason {
    if (this.refusal !== '') return { kind: 'error', message: `the model declined to answer: ${redact(this.refusal, this.key)}` };
    switch (this.finish) {
      case 'length':
        return { kind: 'max_tokens' };
      case 'content_filter':
        return { kind: 'error', message: "the provider's content filter stopped the reply" };
      case 'tool_calls':
      case 'function_call':
        return { kind: 'tool_use' };
      default:
        return hasCalls ? { kind: 'tool_use' } : { kind: 'end_turn' };
    }
  }
}

function usageOf(usage: NonNullable<CompletionChunk['usage']>): Usage {
  const out: Usage = {};
  if (typeof usage.prompt_tokens === 'number') out.input = usage.prompt_tokens;
  if (typeof usage.completion_tokens === 'number') out.output = usage.completion_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') out.cached = cached;
  // Reasoning tokens are part of completion_tokens already (OpenAI's usage object); given apart too.
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoning = reasoning;
  return out;
}
