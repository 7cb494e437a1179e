import type { ToolArtifactFrameFields } from '@murmur/protocol';

/** One tool call a driver asked for. */
export interface ToolCallRequest {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What a tool call returned, as the next inference call receives it. */
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

/** The artifact frame's keys (seed 001, "artifact"), camelCased as the stream extension carries them. */
export type ToolArtifact = ToolArtifactFrameFields;

/** Where a tool call runs and where its live output goes. */
export interface ToolCallContext {
  taskId: string;
  signal: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** A call refused with a message the model reads as the tool's error (bad input, a missing declaration). */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}
