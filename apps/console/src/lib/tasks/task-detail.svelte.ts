/**
 * One task: GetTask, a live SubscribeToTask (with murmur's frames) while it runs, Cancel, and Reply while it waits
 * for input. The stream's events keep the task fresh; the store (GetTask) is read again whenever the task changes
 * state, since it is the source of truth for artifacts and metadata (packages/client README, "Reconnect").
 */
import { applyStreamEvent, isA2AError, type StreamDataEvent } from '@murmur/client';
import { isTerminalState, type Task } from '@murmur/protocol';
import type { DoorClient } from '../door/door-client.js';
import { describeError, type ErrorContext, type Problem } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';
import { LiveFeed } from '../timeline/live-feed.svelte.js';
import { Operation } from '../io/operation.svelte.js';
import { TimelineStore, type TimelineOptions } from '../timeline/timeline.svelte.js';

export interface TaskDetailOptions {
  context?: ErrorContext;
  onProblem?: (problem: Problem) => void;
  timeline?: TimelineOptions;
  /** Quiet time before GetTask after a state change on the stream. @default 150 @unit ms */
  refetchDelayMs?: number;
}

export class TaskDetail {
  /** GetTask's answer, kept fresh between reads by the stream's events and by Cancel's and Reply's answers. */
  readonly #task: Loader<Task>;

  readonly taskId: string;
  readonly feed: LiveFeed;
  readonly cancel: Operation<Task>;
  readonly reply: Operation<Task>;
  readonly #client: () => DoorClient;
  readonly #options: TaskDetailOptions;
  #refetch: ReturnType<typeof setTimeout> | null = null;
  #disposed = false;

  constructor(client: () => DoorClient, taskId: string, options: TaskDetailOptions = {}) {
    this.#client = client;
    this.taskId = taskId;
    this.#options = options;
    const onProblem = (problem: Problem) => options.onProblem?.(problem);
    this.#task = new Loader<Task>({
      onProblem,
      describe: (error) =>
        isA2AError(error, 'TaskNotFound')
          ? { ...describeError(error, options.context), title: `No task ${taskId} on this door (or it is not yours to see)` }
          : describeError(error, options.context),
    });
    this.feed = new LiveFeed((signal) => this.#client().subscribeToTask(taskId, { signal, murmurFrames: true }), {
      timeline: new TimelineStore(options.timeline),
      context: options.context,
      onEvent: (event) => this.#onEvent(event),
      onEnd: () => this.#scheduleRefetch(),
      // The task ended between GetTask and SubscribeToTask: -32004 naming its state. Not a failure: the stream is over.
      isEnd: (problem) => problem.kind === 'a2a' && problem.code === -32004,
      onProblem,
    });
    this.cancel = new Operation<Task>(options.context, onProblem);
    this.reply = new Operation<Task>(options.context, onProblem);
  }

  get task(): Task | null {
    return this.#task.value;
  }
  get loading(): boolean {
    return this.#task.loading;
  }
  get problem(): Problem | null {
    return this.#task.problem;
  }
  /** When GetTask last answered (ms). */
  get loadedAt(): number | null {
    return this.#task.loadedAt;
  }
  get isTerminal(): boolean {
    const task = this.#task.value;
    return task !== null && isTerminalState(task.status.state);
  }
  get waitsForInput(): boolean {
    return this.#task.value?.status.state === 'TASK_STATE_INPUT_REQUIRED';
  }

  /** Reads the task and, while it runs, follows it live. */
  async load(): Promise<void> {
    const task = await this.#get();
    if (task && !isTerminalState(task.status.state)) this.#follow();
  }

  /** CancelTask. An ended task answers -32002 (TaskNotCancelableError), shown with the state it ended in. */
  async cancelTask(): Promise<void> {
    const result = await this.cancel.run(() => this.#client().cancelTask(this.taskId));
    if (result) this.#task.set(result);
    else if (this.cancel.problem?.code === -32002) void this.#get();
  }

  /** Answers the task's input request with `text`; the stream shows it resume. */
  async sendReply(text: string): Promise<boolean> {
    const result = await this.reply.run(() => this.#client().reply(this.taskId, text, { returnImmediately: true }));
    if (!result) return false;
    this.#task.set(result);
    // A stream already `closed` saw the task end after the reply (a fast task ends before its answer arrives):
    // read the task again rather than open a stream on an ended task.
    if (this.feed.state === 'closed') this.#scheduleRefetch();
    else if (!isTerminalState(result.status.state)) this.#follow();
    return true;
  }

  /** Opens the task's stream unless one is already open or opening. */
  #follow(): void {
    const state = this.feed.state;
    if (state === 'idle' || state === 'closed' || state === 'lost' || state === 'needs-token') void this.feed.start();
  }

  dispose(): void {
    this.#disposed = true;
    this.feed.stop();
    this.feed.timeline.dispose();
    if (this.#refetch !== null) clearTimeout(this.#refetch);
    this.#task.reset({ keepProblem: true });
  }

  /** GetTask; only the newest read lands. */
  #get(): Promise<Task | null> {
    return this.#task.load((signal) => this.#client().getTask(this.taskId, { signal }));
  }

  #onEvent(event: StreamDataEvent): void {
    if (event.taskId !== this.taskId) return;
    this.#task.set(applyStreamEvent(this.#task.value, event));
    // The store is the source of truth for artifacts and metadata: read it again once a state change settles.
    if (event.kind === 'status') this.#scheduleRefetch();
  }

  #scheduleRefetch(): void {
    if (this.#disposed) return;
    if (this.#refetch !== null) clearTimeout(this.#refetch);
    this.#refetch = setTimeout(() => {
      this.#refetch = null;
      void this.#get();
    }, this.#options.refetchDelayMs ?? 150);
  }
}
