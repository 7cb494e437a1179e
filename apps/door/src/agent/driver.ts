/**
 * One interface for every model driver: the conversation and the tool inventory in; text and thinking chunks as
 * they stream, then the call's tool calls, stop reason and token usage out; cancellable with an AbortSignal.
 */
import type { JsonObject } from '@murmur/protocol';
import type { ToolCallRequest, ToolOutcome } from '../tools/tool-call.js';
import type { ConversationMessage, ThinkingBlock } from './conversation.js';

export type { ToolCallRequest, ToolOutcome };

/** A tool as the model is told of it: seed 004's inventory entry. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

export interface DriverRequest {
  /** 1-based inference call count of this task. */
  turn: number;
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
  signal: AbortSignal;
  /** `compaction`: the call summarises older turns (docs/agent-loop.md, "Compaction"), not a turn of the task. */
  purpose?: 'compaction';
}

export type DriverChunk = { kind: 'text'; text: string } | { kind: 'thinking'; text: string };

/** Token counts of one call, as the provider reported them; a count it did not report is absent. */
export interface Usage {
  input?: number;
  output?: number;
  /** Input tokens read from the provider's cache. */
  cached?: number;
  /** Input tokens written to the provider's cache. */
  cacheWrite?: number;
  /** Output tokens the model spent reasoning, counted in `output` too (OpenAI's `completion_tokens_details.reasoning_tokens`). */
  reasoning?: number;
}

/**
 * Why a call stopped. `end_turn`: the model answered (its text is the answer); `tool_use`: run the tool calls and
 * call again; `pause_turn`: call again without an answer; `max_tokens`: the output cap cut the answer;
 * `input_required`: the agent asks the user `prompt` (the script driver's `ask`); `error`: the agent gives up with
 * `message` (the script driver's `fail`).
 */
export type StopReason =
  | { kind: 'end_turn' }
  | { kind: 'tool_use' }
  | { kind: 'pause_turn' }
  | { kind: 'max_tokens' }
  | { kind: 'input_required'; prompt: string }
  | { kind: 'error'; message: string };

export interface DriverResponse {
  text: string;
  thinking: ThinkingBlock[];
  toolCalls: ToolCallRequest[];
  stop: StopReason;
  /** Null when the call reported no usage at all. */
  usage: Usage | null;
  /** The provider's id for this completion and the model it names as having answered, when its stream carried them. */
  responseId?: string;
  responseModel?: string;
}

export interface TaskDriver {
  /** The driver choice serving this task, as the trace names it (`script`, a declared choice name). */
  readonly choice: string;
  /** The model the latest call was served by, when the choice names one (a provider choice). */
  readonly model?: string;
  /** The driver kind of that choice (`script`, `anthropic`, `openai-compatible`), and its output cap (none for a script). */
  readonly kind?: string;
  readonly maxOutputTokens?: number;
  infer(request: DriverRequest, onChunk: (chunk: DriverChunk) => void): Promise<DriverResponse>;
}

export class DriverError extends Error {
  override readonly name = 'DriverError';
}
