/** One interface for every model driver: a request in; text, thinking and tool calls out; cancellable. */

export interface ToolCallRequest {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolOutcome {
  name: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The wrk_ id of a shell command that moved to the background, else null. */
  workId: string | null;
  isError: boolean;
  /** The content the model receives. */
  content: string;
}

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
