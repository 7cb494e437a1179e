import type { RunningTask } from '../../tasks/task-queue.js';
import type { TaskProgress, ToolCallRequest } from '../../tools/tool-call.js';
import type { ConversationMessage, UserContent } from '../conversation.js';
import type { StopReason } from '../driver.js';

/** How an attempt is ending, before the on_task_end hooks have their say. */
export type Ending = { kind: 'complete'; answer: string; chunked: boolean } | { kind: 'fail'; message: string; noAnswer?: boolean };

/** What a step decides: the task goes on to its next call (after the runtime's message, when there is one), or the attempt ends. */
export type TurnNext = { kind: 'next'; message: ConversationMessage | null } | { kind: 'end'; ending: Ending };

/** A call's answer as the steps after it read it: its text, why it stopped, its tool calls, and whether its text streamed. */
export interface Answer {
  text: string;
  stop: StopReason;
  toolCalls: readonly ToolCallRequest[];
  chunked: boolean;
}

/** The task's own user message: its text (data renderings and reference block included), then its images in order. */
function taskMessage(task: RunningTask): ConversationMessage {
  const content: UserContent[] = [{ type: 'text', text: task.text }];
  for (const image of task.images) content.push({ type: 'image', mediaType: image.mediaType, base64: Buffer.from(image.bytes).toString('base64') });
  return { role: 'user', origin: 'task', content };
}

/**
 * One task's turns, as every step of the pipeline shares them (docs/agent-loop.md): the conversation, what
 * session-status reads of the task, and the attempt it is in (an on_task_end hook may reopen the task).
 */
export class TaskTurns {
  /** The transcript every call is sent, the task's own message first. */
  readonly messages: ConversationMessage[];
  readonly progress: TaskProgress;
  /** The current attempt's number and calls (they name its turns in the stream), and the reopens so far. */
  readonly attempt = { number: 1, reopens: 0, turn: 0 };

  constructor(
    readonly task: RunningTask,
    /** inference.max_turns: the task's calls across its attempts, continuations and governors' rounds included. */
    readonly maxTurns: number,
  ) {
    this.messages = [taskMessage(task)];
    this.progress = { startedAtMs: task.startedAtMs, turnsUsed: 0, context: null, keepWorkingUsed: 0, doneCheckUsed: 0 };
  }

  /** The task's calls so far, across its attempts. */
  get turn(): number {
    return this.progress.turnsUsed;
  }

  /** Whether another call is within inference.max_turns. */
  get turnLeft(): boolean {
    return this.turn < this.maxTurns;
  }

  /** A call was admitted: it counts for the task and for its attempt; the attempt's count is returned. */
  countCall(): number {
    this.progress.turnsUsed += 1;
    this.attempt.turn += 1;
    return this.attempt.turn;
  }

  /** A harness's turn starts (docs/harness.md): the attempt's count names it in the stream; the task counts it once it closes. */
  openTurn(): number {
    this.attempt.turn += 1;
    return this.attempt.turn;
  }

  /** A harness's turn closed: it counts in turns.used, against inference.max_turns (seed 004, "Turns the harness has closed"). */
  closeTurn(): void {
    this.progress.turnsUsed += 1;
  }

  /** A hook reopened the task: the next attempt's calls are named from 1 again; its number is returned. */
  reopen(): number {
    this.attempt.reopens += 1;
    this.attempt.number += 1;
    this.attempt.turn = 0;
    return this.attempt.number;
  }
}
