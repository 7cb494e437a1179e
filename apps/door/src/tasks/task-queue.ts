import { EventEmitter } from 'node:events';
import { type MessageImage, TERMINAL_STATES } from '@murmur/protocol';
import { type Caller, SESSION_CALLER } from '../auth/caller.js';
import type { MessageTrust } from '../auth/message-trust.js';
import { newId } from '../common/ids.js';
import type { SessionContext } from '../session/session-context.js';
import type { TraceWriter } from '../records/trace-writer.js';
import { renderReferencedTasks } from './references.js';
import type { TaskRow } from './task.entity.js';
import type { TaskEvents, TaskStatusEvent } from './task-events.js';
import { STATUS_TEXT, TaskCanceledError, type TaskLifecycle } from './task-lifecycle.js';
import type { TaskStore } from './task-store.js';
import { agentText } from './task-text.js';
import { redactHandles } from '../peers/peer-handles.js';

/** Tasks waiting in TASK_STATE_SUBMITTED under task_acceptance: queue, beyond which new ones are rejected busy. */
const QUEUE_LIMIT = 1000;

const noop = (): void => undefined;

/**
 * Bytes of task input (text and images) the waiting tasks may hold until they start; past it a new task is
 * rejected busy, as past QUEUE_LIMIT. A task alone in the queue is always admitted.
 * @default 64 MiB
 * @unit bytes (text at two bytes a character, images as decoded)
 */
const QUEUE_BYTES = 64 * 1024 * 1024;

/** The heap a waiting task's input holds. */
const inputBytes = (input: Pick<NewTask, 'text' | 'images'>): number => input.text.length * 2 + input.images.reduce((n, i) => n + i.bytes.length, 0);

export interface NewTask {
  messageId: string;
  contextId: string | null;
  /** The parts as the agent reads them. */
  text: string;
  images: MessageImage[];
  referenceTaskIds: string[];
  /** The message's trust class and origin: an untrusted task's whole text is fenced. */
  trust: MessageTrust;
  /** The request's W3C trace context, already checked (telemetry/): the task's trace continues the caller's. */
  traceContext?: { traceparent: string; tracestate?: string } | null;
  /**
   * The request is answered with the task as it stands once admitted (SendMessage returnImmediately): the task is
   * then written SUBMITTED on its own, so that the answer reads SUBMITTED, before it runs, even at an idle slot.
   */
  answeredAtOnce?: boolean;
  /**
   * The task asks its capsule's harness to forget the session its context names before its first attempt (seed 000,
   * forgetSession): `a2a` from a message's metadata, `cli` from mur run --forget-session. Absent or null: no forget.
   */
  forgetSession?: 'a2a' | 'cli' | null;
}

/** A task the agent loop runs: its input and its cancel signal. */
export interface RunningTask {
  readonly id: string;
  readonly contextId: string;
  readonly text: string;
  readonly images: MessageImage[];
  readonly signal: AbortSignal;
  /** When the task's task_start was written. */
  readonly startedAtMs: number;
  /** The message's trust class: a formation call it makes carries it (x-murmur-task-trust). */
  readonly trust: 'trusted' | 'untrusted';
  /** Who started it (the row's owner): `member:<name>` for a task a formation member sent. */
  readonly owner: string;
  /** Who asked the harness to forget the context's session before this task (NewTask.forgetSession), or null. */
  readonly forgetSession: 'a2a' | 'cli' | null;
}

/** Runs one started task to its end (the agent loop); it reports through the TaskLifecycle. */
export interface TaskRunner {
  run(task: RunningTask): Promise<void>;
}

export interface TaskQueueDeps {
  session: SessionContext;
  store: TaskStore;
  events: TaskEvents;
  trace: TraceWriter;
  lifecycle: TaskLifecycle;
  runner: TaskRunner;
}

/**
 * Admission and the run slot: a new task is written SUBMITTED before it may start, or REJECTED when there is no
 * room; tasks start one at a time in arrival order. A task gives up the slot when it ends or pauses for input.
 */
export class TaskQueue extends EventEmitter<{ 'session-idle-exit': [] }> {
  private closing = false;
  private readonly queue: string[] = [];
  /** New tasks admitted whose SUBMITTED row is still being written. */
  private admitting = 0;
  /** The task holding the run slot: started from the queue and not yet ended or paused for input. */
  private slot: string | null = null;
  private readonly pending = new Map<string, NewTask>();
  /** Bytes of input held by `pending` and by tasks being admitted. */
  private pendingBytes = 0;

  constructor(private readonly deps: TaskQueueDeps) {
    super();
    deps.events.on('status', (event) => this.onStatus(event));
    deps.lifecycle.onSettling((id) => this.releaseSlot(id));
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** A new task from a message: written SUBMITTED before it may start, or REJECTED when there is no room. */
  async submit(input: NewTask, caller: Caller): Promise<TaskRow> {
    const { store, trace, events } = this.deps;
    const view = store.viewFor(caller);
    const joined = input.referenceTaskIds.length > 0 ? `${input.text}\n\n${await renderReferencedTasks(input.referenceTaskIds, view)}` : input.text;
    // "The whole text, fence included": the reference block joins an untrusted task's text inside its fence.
    const text = agentText(joined, input.trust);
    const base = {
      id: newId('task'),
      contextId: input.contextId ?? newId('context'),
      owner: caller.principal,
      messageId: input.messageId,
      createdAtMs: Date.now(),
      statusText: null,
      response: null,
      prompt: null,
      residue: null,
      murmur: null,
    };
    const bytes = inputBytes({ text, images: input.images });
    const refusal = this.admissionRefusal(bytes);
    if (refusal !== null) {
      const row = await store.save({ ...base, state: 'TASK_STATE_REJECTED', statusText: refusal }, Date.now());
      trace.write('task_rejected', { task_id: row.id, context_id: row.contextId, reason: refusal });
      return row;
    }
    // Admitted: counted until its row is in the store, so that a message arriving meanwhile sees it (single: busy).
    this.admitting++;
    this.pendingBytes += bytes;
    // The run slot is idle and nobody waits: the task takes the slot now, and its TASK_STATE_WORKING is written in the
    // same commit as its TASK_STATE_SUBMITTED (one SQLite round trip less on the serial path; docs/decisions.md),
    // unless the request answers at once, with the task SUBMITTED.
    const startsNow = !input.answeredAtOnce && this.slot === null && this.queue.length === 0 && !this.closing;
    if (startsNow) this.slot = base.id;
    let row: TaskRow;
    let working: TaskRow | null = null;
    try {
      if (startsNow) [row, working] = await store.saveStarting({ ...base, state: 'TASK_STATE_SUBMITTED' }, Date.now());
      else row = await store.save({ ...base, state: 'TASK_STATE_SUBMITTED' }, Date.now());
    } catch (error) {
      this.pendingBytes -= bytes;
      if (startsNow) this.releaseSlot(base.id);
      throw error;
    } finally {
      this.admitting--;
    }
    trace.write('task_start', {
      task_id: row.id,
      context_id: row.contextId,
      message_id: input.messageId,
      origin: row.owner,
      trust: input.trust.trust,
      text_chars: text.length,
      // The operator's input as sent (before fencing): the console's task record shows it (docs/console.md); a peer
      // handle's secret in it is kept out of the trace (docs/planes.md).
      text: redactHandles(input.text),
      references: input.referenceTaskIds,
      attachments: input.images.map((i) => ({ part_index: i.partIndex, media_type: i.mediaType, bytes: i.bytes.length })),
      ...(input.traceContext ?? {}),
    });
    events.emit('status', { row, progress: null });
    if (working) {
      this.pendingBytes -= bytes;
      this.deps.lifecycle.reportStarted(working);
      // The door began closing while these rows were written: close() did not see the task, so it is canceled here.
      if (this.closing) {
        this.releaseSlot(row.id);
        return (await this.cancel(row.id)) ?? (await store.read(row.id)) ?? row;
      }
      void this.run(working, { ...input, text });
      return row;
    }
    this.pending.set(row.id, { ...input, text });
    this.queue.push(row.id);
    // The door began closing while this row was written: close() did not see it, so it is canceled here, never left live.
    if (this.closing) return (await this.cancel(row.id)) ?? (await store.read(row.id)) ?? row;
    // Answered at once (returnImmediately): the answer goes out before the task may start, as it reads. Started in
    // this turn, the driver's first tool call could spawn its command (a synchronous fork of several ms) first.
    if (input.answeredAtOnce) setImmediate(() => this.pump());
    else this.pump();
    return row;
  }

  /**
   * A task the runtime starts itself, owned by the session (seed 000, "Who sees a task"): the launch's own task
   * (mur run --task, task.md, input.txt), a detached command's result, a resumed launch's report of lost commands.
   */
  submitSessionTask(
    text: string,
    options: { traceContext?: NewTask['traceContext']; contextId?: string | null; forgetSession?: NewTask['forgetSession'] } = {},
  ): Promise<TaskRow> {
    return this.submit(
      {
        messageId: newId('message'),
        contextId: options.contextId ?? null,
        text,
        images: [],
        referenceTaskIds: [],
        trust: { trust: 'trusted', origin: 'session' },
        traceContext: options.traceContext ?? null,
        forgetSession: options.forgetSession ?? null,
      },
      SESSION_CALLER,
    );
  }

  /** A waiting task's input, leaving the queue's keeping (and its byte count). */
  private takePending(id: string): NewTask | undefined {
    const input = this.pending.get(id);
    if (input) {
      this.pending.delete(id);
      this.pendingBytes -= inputBytes(input);
    }
    return input;
  }

  private admissionRefusal(bytes: number): string | null {
    if (this.closing) return STATUS_TEXT.rejectedClosing;
    const acceptance = this.deps.session.manifest.lifecycle.task_acceptance;
    if (acceptance === 'single' && this.admitting + this.deps.store.liveRows().length > 0) return STATUS_TEXT.rejectedBusy;
    if (acceptance === 'queue' && this.admitting + this.queue.length >= QUEUE_LIMIT) return STATUS_TEXT.rejectedBusy;
    if (acceptance === 'queue' && this.admitting + this.queue.length > 0 && this.pendingBytes + bytes > QUEUE_BYTES) return STATUS_TEXT.rejectedBusy;
    return null;
  }

  private pump(): void {
    while (this.slot === null && this.queue.length > 0 && !this.closing) {
      const id = this.queue.shift()!;
      const input = this.takePending(id);
      const row = this.deps.store.latest(id);
      if (!input || !row || row.state !== 'TASK_STATE_SUBMITTED') continue;
      this.slot = id;
      void this.start(row, input);
    }
  }

  private start(row: TaskRow, input: NewTask): Promise<void> {
    return this.run(row, input, true);
  }

  /**
   * Runs a task holding the slot. With `working`, its TASK_STATE_WORKING is issued first and the driver runs while it
   * commits (its SUBMITTED is already durable): whatever the task reports is held until that version is (TaskEvents),
   * so a task that ends within a turn or two commits its start and its ending in one group. If the WORKING write
   * fails, the driver is stopped and the task failed, and nothing it did was reported.
   */
  private async run(row: TaskRow, input: NewTask, working = false): Promise<void> {
    const { lifecycle, runner } = this.deps;
    const signal = lifecycle.started(row.id);
    let workingFailure: Error | null = null;
    const written = working ? lifecycle.transition(row.id, 'TASK_STATE_WORKING', {}) : null;
    written?.then(
      (w) => {
        if (!w) lifecycle.stop(row.id);
      },
      (error: Error) => {
        workingFailure = error;
        lifecycle.stop(row.id);
      },
    );
    try {
      await runner.run({
        id: row.id,
        contextId: row.contextId,
        text: input.text,
        images: input.images,
        signal,
        startedAtMs: row.createdAtMs,
        trust: input.trust.trust,
        owner: row.owner,
        forgetSession: input.forgetSession ?? null,
      });
      if (written) await written;
    } catch (error) {
      if (written) await written.then(noop, noop);
      const failure = workingFailure ?? (error instanceof TaskCanceledError || signal.aborted ? null : (error as Error));
      if (failure) await lifecycle.fail(row.id, `driver invocation failed: ${failure.message}`).catch(noop);
    } finally {
      lifecycle.finished(row.id);
      this.releaseSlot(row.id);
    }
  }

  /** A task gives up the run slot when it pauses for input or ends; under after_task: exit the last ending ends the session. */
  private onStatus({ row }: TaskStatusEvent): void {
    if (row.state !== 'TASK_STATE_INPUT_REQUIRED' && !TERMINAL_STATES.has(row.state)) return;
    this.releaseSlot(row.id);
    if (
      TERMINAL_STATES.has(row.state) &&
      row.state !== 'TASK_STATE_REJECTED' &&
      this.deps.session.manifest.lifecycle.after_task === 'exit' &&
      this.deps.store.liveRows().length === 0 &&
      !this.closing
    ) {
      this.emit('session-idle-exit');
    }
  }

  private releaseSlot(id: string): void {
    if (this.slot !== id) return;
    this.slot = null;
    this.pump();
  }

  /** Cancels a live task; one still waiting in the queue leaves it and never starts. Null when it had already ended. */
  async cancel(id: string): Promise<TaskRow | null> {
    // Live tasks are always in the mirror: one missing from it has ended, and there is nothing to cancel.
    const current = this.deps.store.latest(id);
    if (!current) return null;
    const queued = current.state === 'TASK_STATE_SUBMITTED' && !this.deps.lifecycle.isRunning(id);
    if (queued) {
      const at = this.queue.indexOf(id);
      if (at >= 0) this.queue.splice(at, 1);
      this.takePending(id);
    }
    return this.deps.lifecycle.cancel(id, queued);
  }

  /** murmur.StopSession: cancels every live task, answering the rows it wrote CANCELED (by id); the door keeps serving. */
  async cancelAll(): Promise<TaskRow[]> {
    // Queued tasks first: canceling the running task frees the run slot, which would start the next queued one.
    const live = this.deps.store.liveRows();
    const isQueued = (r: TaskRow) => r.state === 'TASK_STATE_SUBMITTED' && !this.deps.lifecycle.isRunning(r.id);
    const ids = [...live.filter(isQueued), ...live.filter((r) => !isQueued(r))].map((r) => r.id);
    const canceled: TaskRow[] = [];
    for (const id of ids) {
      const row = await this.cancel(id);
      if (row) canceled.push(row);
    }
    return canceled.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * The door is closing: refuse new tasks, end live ones, answer every held request with its task as it stands.
   * Live tasks are canceled (mur stop, SIGTERM), or fail with `failure` when the session ends on its own (a deadline).
   */
  async close(failure?: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.queue.length = 0;
    for (const id of this.deps.store.liveRows().map((r) => r.id)) {
      const ending = failure === undefined ? this.cancel(id) : this.deps.lifecycle.fail(id, failure);
      await ending.catch(() => undefined);
    }
    this.deps.lifecycle.releaseHeld();
  }
}
