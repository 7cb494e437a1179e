/** One interface for every model driver: a request in; text, thinking and tool calls out; cancellable. */
import type { ToolCallRequest, ToolOutcome } from '../tools/tool-call.js';

export type { ToolCallRequest, ToolOutcome };

export interface DriverRequest {
  /** 1-based inference call count of this task. */
  turn: number;
  /** Results of the tool calls the previous turn asked for, in order. */
  toolResults: ToolOutcome[];
  /** The latest reply to an input request, if any. */
  reply: string | null;
  signal: AbortSignal;
}

export type DriverChunk = { kind: 'text'; text: string } | { kind: 'thinking'; text: string };

/** What an inference call ended with: tool calls to run, then another call; or an answer, a question, a failure. */
export type DriverOutcome =
  | { kind: 'tools'; calls: ToolCallRequest[] }
  | { kind: 'answer'; text: string }
  | { kind: 'ask'; prompt: string }
  | { kind: 'fail'; message: string }
  | { kind: 'continue' };

export interface TaskDriver {
  infer(request: DriverRequest, onChunk: (chunk: DriverChunk) => void): Promise<DriverOutcome>;
}

export class DriverError extends Error {
  override readonly name = 'DriverError';
}
