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

/** What the running task knows of itself, for session-status (seed 004). */
export interface TaskProgress {
  /** When the task's task_start was written. */
  startedAtMs: number;
  /** Inference calls the task has made: the count inference.max_turns is checked against. */
  turnsUsed: number;
  /** The conversation's size as last measured, or null before the first call returned. */
  context: { usedTokens: number; measuredBy: 'actual' | 'estimate' } | null;
  /** Messages lifecycle.keep_working has sent the task (docs/agent-loop.md, "keep_working"). */
  keepWorkingUsed: number;
  /** Times lifecycle.done_check has sent the task back to work (docs/agent-loop.md, "done_check"). */
  doneCheckUsed: number;
}

/** Where a tool call runs and where its live output goes. */
export interface ToolCallContext {
  taskId: string;
  /** The call's own id, as the dispatcher hands it to a runtime tool (submit-plan names its steps' records by it). */
  toolCallId?: string;
  signal: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
  /** The running task's progress; absent outside a task. */
  task?: TaskProgress;
  /** The running task's trust class, which an outbound call carries. @default 'trusted' */
  trust?: 'trusted' | 'untrusted';
  /** The formation member that sent the running task, or null (docs/formations.md). */
  sentBy?: string | null;
  /** Pauses the running task for input with `prompt` (request-input); absent outside a task. */
  askUser?: (prompt: string) => Promise<AskOutcome>;
  /** A text or thinking chunk a tool streams while it runs (murmur:text/chunks, seed 001); absent outside a task. */
  onChunk?: (stream: 'text' | 'thinking', text: string) => void;
  /**
   * The on_tool_call decision point (agent/, docs/agent-loop.md "Hooks") for a call the runtime makes on the model's
   * behalf — a plan's step (docs/plans.md): the refusal the model reads when a hook denies it, or null. Absent outside a task.
   */
  decide?: (call: ToolCallRequest) => Promise<string | null>;
}

/** How request-input's wait ended: the reply's text as sent, or no reply within the input timeout. */
export type AskOutcome = { kind: 'reply'; text: string } | { kind: 'timeout'; waitedSecs: number };

/** A runtime tool's answer: its data (fenced as the tool's result), the runtime's note after the fence, and whether it failed. */
export interface RuntimeToolAnswer {
  data: string;
  note?: string;
  failed?: boolean;
  /** `data` is already the whole content the model reads, its untrusted parts fenced by the tool (submit-plan's steps). */
  fenced?: boolean;
}

/** A call refused with a message the model reads as the tool's error (bad input, a missing declaration). */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

/** An operator's command's run (a done check, a hook): its exit (null when it did not finish), its output, whether its time ran out. */
export interface CommandRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

/** Runs an operator's command as a shell call runs (ToolDispatcher.runOperatorCommand), `stdin` its input. */
export type OperatorCommandRunner = (command: string, task: { id: string; signal: AbortSignal }, timeoutMs: number, stdin?: string) => Promise<CommandRun>;
