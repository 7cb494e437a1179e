/**
 * Act where you look: Reply and Cancel from the session timeline's task headers. One instance per DoorSession; each
 * action is an Operation (its problem in words) that remembers which task it ran for, so the view shows the answer or
 * the refusal next to that task's dialog.
 */
import type { Task } from '@murmur/protocol';
import type { DoorClient } from '../door/door-client.js';
import type { ErrorContext, Problem } from '../io/errors.js';
import { Operation } from '../io/operation.svelte.js';

export interface TaskActionsOptions {
  context?: ErrorContext;
  onProblem?: (problem: Problem) => void;
  /** A task was canceled or answered (the task list re-lists). */
  onDone?: () => void;
}

export class TaskActions {
  readonly cancel: Operation<Task>;
  readonly reply: Operation<Task>;
  #cancelTarget = $state<string | null>(null);
  #replyTarget = $state<string | null>(null);
  readonly #client: () => DoorClient;
  readonly #onDone: (() => void) | undefined;

  constructor(client: () => DoorClient, options: TaskActionsOptions = {}) {
    this.#client = client;
    this.#onDone = options.onDone;
    this.cancel = new Operation<Task>(options.context, options.onProblem);
    this.reply = new Operation<Task>(options.context, options.onProblem);
  }

  /** The task the last Cancel was for. */
  get cancelTarget(): string | null {
    return this.#cancelTarget;
  }

  /** The task the last Reply was for. */
  get replyTarget(): string | null {
    return this.#replyTarget;
  }

  /** CancelTask; true when the door canceled it. */
  async cancelTask(taskId: string): Promise<boolean> {
    this.#cancelTarget = taskId;
    const task = await this.cancel.run(() => this.#client().cancelTask(taskId));
    if (task) this.#onDone?.();
    return task !== null;
  }

  /** Answers the task's input request (SendMessage with its taskId, answered at once); true when the door took it. */
  async sendReply(taskId: string, text: string): Promise<boolean> {
    this.#replyTarget = taskId;
    const task = await this.reply.run(() => this.#client().reply(taskId, text, { returnImmediately: true }));
    if (task) this.#onDone?.();
    return task !== null;
  }

  /** Forgets the answers shown (a new token). */
  reset(): void {
    this.cancel.reset();
    this.reply.reset();
    this.#cancelTarget = null;
    this.#replyTarget = null;
  }
}
