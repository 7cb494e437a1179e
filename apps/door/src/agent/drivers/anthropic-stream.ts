/**
 * Reads a messages stream (docs/drivers.md, "Anthropic"): text and thinking deltas → chunks, signatures kept on
 * their thinking blocks, tool_use input assembled from input_json_delta pieces, usage from message_start and
 * message_delta, message_stop as the end; ping and unknown events ignored; an error event fails the attempt.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import type { ThinkingBlock } from '../conversation.js';
import type { DriverChunk, DriverResponse, StopReason, ToolCallRequest, Usage } from '../driver.js';
import { ProviderFailure, redact } from './provider-failure.js';
import type { StreamConsumer } from './stream-consumer.js';
import { parseToolArguments } from './tool-arguments.js';

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; block: ThinkingBlock }
  | { type: 'tool_use'; id: string; name: string; json: string; input?: Record<string, unknown> }
  | { type: 'other' };

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

// biome-ignore lint/suspicious/noExplicitAny: provider events are read defensively, member by member
type WireEvent = { type?: unknown } & Record<string, any>;

export class AnthropicStream implements StreamConsumer {
  private responseId: string | undefined;
  private responseModel: string | undefined;
  complete = false;
  streamed = false;
  private events = 0;
  private readonly blocks = new Map<number, Block>();
  private readonly wireUsage: WireUsage = {};
  private sawUsage = false;
  private stopReason: string | null = null;

  constructor(
    private readonly onChunk: (chunk: DriverChunk) => void,
    private readonly key: string | null,
  ) {}

  event(message: EventSourceMessage): void {
    this.events += 1;
    let event: WireEvent;
    try {
      event = JSON.parse(message.data) as WireEvent;
    } catch {
      throw new ProviderFailure('malformed', `the provider's stream could not be read: event ${this.events} is not JSON`);
    }
    if (event === null || typeof event !== 'object')
      throw new ProviderFailure('malformed', `the provider's stream could not be read: event ${this.events} is not an object`);
    switch (event.type) {
      case 'message_start':
        this.addUsage(event.message?.usage);
        if (typeof event.message?.id === 'string' && event.message.id !== '') this.responseId = event.message.id;
        if (typeof event.message?.model === 'string' && event.message.model !== '') this.responseModel = event.message.model;
        break;
      case 'content_block_start':
        this.start(Number(event.index), event.content_block ?? {});
        break;
      case 'content_block_delta':
        this.delta(Number(event.index), event.delta ?? {});
        break;
      case 'content_block_stop': {
        const block = this.blocks.get(Number(event.index));
        if (block?.type === 'tool_use') block.input = parseToolArguments(block.id, block.name, block.json);
        break;
      }
      case 'message_delta':
        if (typeof event.delta?.stop_reason === 'string') this.stopReason = event.delta.stop_reason;
        this.addUsage(event.usage);
        break;
      case 'message_stop':
        this.complete = true;
        break;
      case 'error': {
        const type = typeof event.error?.type === 'string' ? event.error.type : 'error';
        const text = typeof event.error?.message === 'string' ? event.error.message : 'an error';
        throw new ProviderFailure('stream-error', `${redact(type, this.key)}: ${redact(text, this.key)}`, { errorType: type });
      }
      default:
        // ping, and events this driver does not know: Anthropic's versioning asks clients to ignore them.
        break;
    }
  }

  private start(index: number, block: WireEvent): void {
    switch (block.type) {
      case 'text':
        this.blocks.set(index, { type: 'text', text: '' });
        if (typeof block.text === 'string' && block.text !== '') this.text(index, block.text);
        break;
      case 'thinking':
        this.blocks.set(index, { type: 'thinking', block: { text: '' } });
        if (typeof block.thinking === 'string' && block.thinking !== '') this.thinking(index, block.thinking);
        break;
      case 'tool_use':
        this.blocks.set(index, { type: 'tool_use', id: String(block.id ?? `toolu_${index}`), name: String(block.name ?? ''), json: '' });
        break;
      default:
        // redacted_thinking, server tools: the conversation has no place for them.
        this.blocks.set(index, { type: 'other' });
    }
  }

  private delta(index: number, delta: WireEvent): void {
    const block = this.blocks.get(index);
    // A delta belongs to a block its content_block_start opened: one that never started is a broken stream, not text
    // to show or drop unsaid.
    if (block === undefined)
      throw new ProviderFailure(
        'malformed',
        `the provider's stream could not be read: event ${this.events} is a delta for content block ${index}, which never started`,
      );
    switch (delta.type) {
      case 'text_delta':
        if (typeof delta.text === 'string') this.text(index, delta.text);
        break;
      case 'thinking_delta':
        if (typeof delta.thinking === 'string') this.thinking(index, delta.thinking);
        break;
      case 'signature_delta':
        if (block?.type === 'thinking' && typeof delta.signature === 'string') block.block.signature = (block.block.signature ?? '') + delta.signature;
        break;
      case 'input_json_delta':
        if (block?.type === 'tool_use' && typeof delta.partial_json === 'string') block.json += delta.partial_json;
        break;
      default:
        break;
    }
  }

  private text(index: number, text: string): void {
    const block = this.blocks.get(index);
    if (block?.type !== 'text' || text === '') return;
    block.text += text;
    this.streamed = true;
    this.onChunk({ kind: 'text', text });
  }

  private thinking(index: number, text: string): void {
    const block = this.blocks.get(index);
    if (block?.type !== 'thinking' || text === '') return;
    block.block.text += text;
    this.streamed = true;
    this.onChunk({ kind: 'thinking', text });
  }

  private addUsage(usage: WireUsage | undefined): void {
    if (!usage || typeof usage !== 'object') return;
    for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const) {
      const value = usage[key];
      if (typeof value === 'number') {
        this.wireUsage[key] = value;
        this.sawUsage = true;
      }
    }
  }

  response(): DriverResponse {
    const ordered = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    const toolCalls: ToolCallRequest[] = [];
    for (const block of ordered) {
      if (block.type === 'tool_use')
        toolCalls.push({ id: block.id, name: block.name, input: block.input ?? parseToolArguments(block.id, block.name, block.json) });
    }
    return {
      text: ordered.map((b) => (b.type === 'text' ? b.text : '')).join(''),
      thinking: ordered.flatMap((b) => (b.type === 'thinking' ? [b.block] : [])),
      toolCalls,
      stop: this.stop(toolCalls.length > 0),
      usage: this.sawUsage ? this.usage() : null,
      ...(this.responseId === undefined ? {} : { responseId: this.responseId }),
      ...(this.responseModel === undefined ? {} : { responseModel: this.responseModel }),
    };
  }

  /** Input counts every input token, cached ones included (docs/drivers.md): Anthropic's input_tokens excludes them. */
  private usage(): Usage {
    const u = this.wireUsage;
    const out: Usage = {};
    if (u.input_tokens != null || u.cache_read_input_tokens != null || u.cache_creation_input_tokens != null) {
      out.input = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    }
    if (u.output_tokens != null) out.output = u.output_tokens;
    if (u.cache_read_input_tokens != null) out.cached = u.cache_read_input_tokens;
    if (u.cache_creation_input_tokens != null) out.cacheWrite = u.cache_creation_input_tokens;
    return out;
  }

  private stop(hasCalls: boolean): StopReason {
    switch (this.stopReason) {
      case 'tool_use':
        return { kind: 'tool_use' };
      case 'max_tokens':
        return { kind: 'max_tokens' };
      case 'pause_turn':
        return { kind: 'pause_turn' };
      case 'refusal':
        return { kind: 'error', message: 'the model declined to answer' };
      default:
        return hasCalls ? { kind: 'tool_use' } : { kind: 'end_turn' };
    }
  }
}
