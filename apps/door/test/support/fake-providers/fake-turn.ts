/**
 * A scripted provider transcript, provider-neutral: each request the fake receives plays the next reply, written in
 * the provider's own wire format by openai-wire.ts or anthropic-wire.ts.
 */
interface FakeToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Responses only: the namespace a tool is listed under (Codex lists an MCP server's tools under `mcp__<server>`). */
  namespace?: string;
}

export interface FakeTurn {
  /** Thinking chunks (OpenAI-compatible `reasoning_content`; Anthropic thinking deltas, then a signature). */
  thinking?: string[];
  text?: string[];
  /** Parallel tool calls, their arguments sent in pieces. */
  toolCalls?: FakeToolCall[];
  /** As the door counts it: input includes cached and cache-write tokens. */
  /** `reasoning`: OpenAI-compatible only, `completion_tokens_details.reasoning_tokens` (0 when absent, as the API sends). */
  usage?: { input: number; output: number; cached?: number; cacheWrite?: number; reasoning?: number };
  /** OpenAI-compatible only: a refusal (`delta.refusal`), sent in one piece. */
  refusal?: string;
  /** Default: `tool` with tool calls, else `end`. `filter`: OpenAI's `content_filter`, Anthropic's `refusal`. */
  stop?: 'end' | 'tool' | 'length' | 'filter';
  /** Pause before each event. @unit ms */
  paceMs?: number;
  /**
   * After this many events: a chunk that is not JSON (`malformed`), one that is JSON but no object (`not-object`), a
   * stall (nothing more, the socket left open), a disconnect, the provider's in-stream error event (`errorType`, default
   * overloaded_error; `errorMessage`), after which the stream ends, or (Anthropic only) a `text_delta` for a content
   * block that never started (`orphan-delta`), or (Anthropic only) what a newer API version may send, after which the
   * stream goes on (`unknown-parts`: an event of a type the driver does not know, a delta of an unknown type and a
   * `text_delta` with no `text`, both for content block 0, which must have started). `no-headers`: the request is read
   * and nothing is ever answered, not even the status line (afterEvents is not read).
   */
  fault?: {
    kind: 'malformed' | 'not-object' | 'stall' | 'disconnect' | 'error' | 'orphan-delta' | 'unknown-parts' | 'no-headers';
    afterEvents: number;
    errorType?: string;
    errorMessage?: string;
  };
  /** Response headers of this answer, beside the provider's own (a provider's rate-limit headers). */
  headers?: Record<string, string>;
}

/** An HTTP error answer in the provider's error shape. */
export interface FakeStatus {
  status: number;
  headers?: Record<string, string>;
  message?: string;
  /** The provider's error type (`rate_limit_error`, `overloaded_error`); a default by status otherwise. */
  errorType?: string;
}

export type FakeReply = FakeTurn | FakeStatus;

export function isStatus(reply: FakeReply): reply is FakeStatus {
  return 'status' in reply;
}

/** One SSE event as the fake writes it. */
export interface WireEvent {
  event?: string;
  /** JSON text, or the raw line content for `[DONE]` and malformed chunks. */
  data: string;
}

/** Splits a JSON text into about `parts` pieces, as providers stream tool arguments. */
export function pieces(text: string, parts = 3): string[] {
  if (text.length <= parts) return [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
