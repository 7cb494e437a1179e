import { EventEmitter } from 'node:events';
import { isSettledState, type MessageImage, type MurmurTaskMetadata, type TaskState, TERMINAL_STATES } from '@murmur/protocol';
import { newId } from '../session/ids.js';
import { fenceUntrusted } from '../tools/untrusted-fence.js';
import type { SessionContext } from '../session/session-context.js';
import type { BackgroundCommands } from '../tools/background-commands.js';
import type { TraceWriter } from '../session/trace-writer.js';
import { type Caller, type MessageTrust, SESSION_CALLER } from '../auth/caller.js';
import { renderReferencedTasks } from './references.js';
import type { TaskRow } from './task.entity.js';
import type { TaskEvents } from './task-events.js';
import type { TaskStore } from './task-store.js';

export const STATUS_TEXT = {
  completed: 'task completed',
  canceled: 'task canceled',
  canceledQueued: 'task canceled before it started',
  rejectedBusy: 'task rejected: capsule is busy',
  rejectedClosing: 'task rejected: the session is closing',
} as const;

/** Tasks waiting in TASK_STATE_SUBMITTED under task_acceptance: queue, beyond which new ones are rejected busy. */
export const QUEUE_LIMIT = 1000;

export interface NewTask {
  messageId: string;
  contextId: string | null;
  /** The parts as the agent reads them. */
  text: string;
  images: MessageImage[];
  referenceTaskIds: string[];
  /** The message's trust class and origin: an untrusted task's whole text is fenced. */
  trust: MessageTrust;
}

/** A task the agent loop runs: its input, its cancel signal, and the transitions it may make. */
export interface RunningTask {
  readonly id: string;
  readonly contextId: string;
  readonly text: string;
  readonly images: MessageImage[];
  readonly signal: AbortSignal;
}

export interface TaskRunner {
  run(task: RunningTask): Promise<void>;
}

interface LiveTask extends RunningTask {
  readonly abort: AbortController;
  deliverReply: ((text: string) => void) | null;
}

export class TaskCanceledError extends Error {
  override readonly name = 'TaskCanceledError';
}

/** A reply reached a task that stopped waiting for input before it could be delivered; `row` is the task as it now stands. */
export class TaskNotWaitingError extends Error {
  override readonly name = 'TaskNotWaitingError';
  constructor(readonly row: TaskRow) {
    super(`task ${row.id} is not waiting for input`);
  }
}

/** The task lifecycle: admission, the run queue, every transition written before it is reported, and held answers. */
export class TaskService extends EventEmitter<{ 'session-idle-exit': [] }> {
  private closing = false;
  private runner: TaskRunner | null = null;
  private readonly queue: string[] = [];
  /** New tasks admitted whose SUBMITTED row is still being written. */
  private admitting = 0;
  /** The task holding the run slot: started from the queue and not yet ended or paused for input. */
  private slot: string | null = null;
  private readonly live = new Map<string, LiveTask>();
  private readonly pending = new Map<string, NewTask>();
  private readonly settleWaiters = new Map<string, Set<(row: TaskRow) => void>>();
  /** Per task, the tail of its state writes: each change of one task is decided on the state the previous one wrote. */
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(
    private readonly session: SessionContext,
    private readonly store: TaskStore,
    private readonly events: TaskEvents,
    private readonly trace: TraceWriter,
    private readonly background: BackgroundCommands,
  ) {
    super();
  }

  useRunner(runner: TaskRunner): void {
    this.runner = runner;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** A new task from a message: written SUBMITTED before it may start, or REJECTED when there is no room. */
  async submit(input: NewTask, caller: Caller): Promise<TaskRow> {
    const view = this.store.viewFor(caller);
    const joined = input.referenceTaskIds.length > 0 ? `${input.text}\n\n${renderReferencedTasks(input.referenceTaskIds, view)}` : input.text;
    // "The whole text, fence included": the reference block joins an untrusted task's text inside its fence.
    const text = input.trust.trust === 'untrusted' ? fenceUntrusted(`task:${input.trust.origin}`, joined) : joined;
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
    const refusal = this.admissionRefusal();
    if (refusal !== null) {
      const row = await this.store.save({ ...base, state: 'TASK_STATE_REJECTED', statusText: refusal }, Date.now());
      this.trace.write('task_rejected', { task_id: row.id, context_id: row.contextId, reason: refusal });
      return row;
    }
    // Admitted: counted until its row is in the store, so that a message arriving meanwhile sees it (single: busy).
    this.admitting++;
    let row: TaskRow;
    try {
      row = await this.store.save({ ...base, state: 'TASK_STATE_SUBMITTED' }, Date.now());
    } finally {
      this.admitting--;
    }
    this.trace.write('task_start', {
      task_id: row.id,
      context_id: row.contextId,
      message_id: input.messageId,
      origin: row.owner,
      trust: input.trust.trust,
      text_chars: text.length,
      references: input.referenceTaskIds,
      attachments: input.images.map((i) => ({ part_index: i.partIndex, media_type: i.mediaType, bytes: i.bytes.length })),
    });
    this.events.emit('status', { row, text: null, stored: true });
    this.pending.set(row.id, { ...input, text });
    this.queue.push(row.id);
    // The door began closing while this row was written: close() did not see it, so it is canceled here, never left live.
    if (this.closing) return (await this.cancel(row.id)) ?? this.store.row(row.id)!;
    this.pump();
    return row;
  }

  /** The launch's own task (mur run --task, task.md, input.txt): the session's, listed from the moment the door is announced. */
  submitLaunchTask(text: string): Promise<TaskRow> {
    return this.submit(
      { messageId: newId('message'), contextId: null, text, images: [], referenceTaskIds: [], trust: { trust: 'trusted', origin: 'session' } },
      SESSION_CALLER,
    );
  }

  private admissionRefusal(): string | null {
    if (this.closing) return STATUS_TEXT.rejectedClosing;
    const acceptance = this.session.manifest.lifecycle.task_acceptance;
    if (acceptance === 'single' && this.admitting + this.store.liveRows().length > 0) return STATUS_TEXT.rejectedBusy;
    if (acceptance === 'queue' && this.admitting + this.queue.length >= QUEUE_LIMIT) return STATUS_TEXT.rejectedBusy;
    return null;
  }

  private pump(): void {
    while (this.slot === null && this.queue.length > 0 && !this.closing) {
      const id = this.queue.shift()!;
      const input = this.pending.get(id);
      this.pending.delete(id);
      const row = this.store.row(id);
      if (!input || !row || row.state !== 'TASK_STATE_SUBMITTED') continue;
      this.slot = id;
      void this.start(row, input);
    }
  }

  private async start(row: TaskRow, input: NewTask): Promise<void> {
    const abort = new AbortController();
    const task: LiveTask = { id: row.id, contextId: row.contextId, text: input.text, images: input.images, signal: abort.signal, abort, deliverReply: null };
    this.live.set(row.id, task);
    try {
      // Canceled before it could start: it never runs.
      if (!(await this.transition(row.id, 'TASK_STATE_WORKING', {}))) return;
      if (!this.runner) throw new Error('no agent loop is configured for this door');
      await this.runner.run(task);
    } catch (error) {
      if (!(error instanceof TaskCanceledError) && !abort.signal.aborted) {
        await this.fail(row.id, `driver invocation failed: ${(error as Error).message}`).catch(() => undefined);
      }
    } finally {
      this.live.delete(row.id);
      this.releaseSlot(row.id);
    }
  }

  private releaseSlot(id: string): void {
    if (this.slot !== id) return;
    this.slot = null;
    this.pump();
  }

  /**
   * Runs one state write of a task after the ones before it have been written. The in-memory row changes only once
   * the store has the write, so without this two concurrent writers (a cancel and a reply, two cancels) would both
   * decide on the same old state, and the later write would overwrite an ending.
   */
  private serially<T>(id: string, write: () => Promise<T>): Promise<T> {
    const result = (this.writes.get(id) ?? Promise.resolve()).then(write);
    const tail = result.catch(() => undefined);
    this.writes.set(id, tail);
    void tail.then(() => {
      if (this.writes.get(id) === tail) this.writes.delete(id);
    });
    return result;
  }

  /** Writes a transition of a task that is not yet terminal; a task already ended (canceled meanwhile) is left alone. */
  private transition(id: string, state: TaskState, fields: Partial<Pick<TaskRow, 'statusText' | 'response' | 'prompt' | 'residue' | 'murmur'>>): Promise<TaskRow | null> {
    return this.serially(id, async () => {
      const current = this.store.row(id);
      if (!current || TERMINAL_STATES.has(current.state)) return null;
      const row = await this.store.save({ ...current, statusText: null, prompt: null, ...fields, state }, Date.now());
      this.events.emit('status', { row, text: null, stored: true });
      if (isSettledState(state)) this.notifySettled(row);
      if (TERMINAL_STATES.has(state)) this.afterEnd(row);
      return row;
    });
  }

  private afterEnd(row: TaskRow): void {
    this.trace.write('task_end', {
      task_id: row.id,
      state: row.state,
      status: row.statusText,
      running_commands: row.murmur?.runningCommands ?? [],
    });
    this.live.get(row.id)?.abort.abort();
    this.releaseSlot(row.id);
    if (this.session.manifest.lifecycle.after_task === 'exit' && this.store.liveRows().length === 0 && !this.closing) {
      this.emit('session-idle-exit');
    }
  }

  private endMetadata(id: string, nowMs: number): MurmurTaskMetadata | null {
    const runningCommands = this.background.runningCommandsOf(id, nowMs);
    return runningCommands ? { runningCommands } : null;
  }

  /** A progress status the stream shows (e.g. "inference turn 2"); the stored state does not change. */
  progress(id: string, text: string): void {
    const row = this.store.row(id);
    if (row && row.state === 'TASK_STATE_WORKING') this.events.emit('status', { row, text, stored: false });
  }

  async complete(id: string, response: string): Promise<void> {
    const row = await this.transition(id, 'TASK_STATE_COMPLETED', { statusText: STATUS_TEXT.completed, response, murmur: this.endMetadata(id, Date.now()) });
    if (row) this.trace.write('task_result', { task_id: id, chars: response.length });
  }

  async fail(id: string, message: string): Promise<void> {
    await this.transition(id, 'TASK_STATE_FAILED', { statusText: message, murmur: this.endMetadata(id, Date.now()) });
  }

  /** Pauses the task for input and resolves with the reply; rejects with TaskCanceledError when it is canceled meanwhile. */
  async awaitReply(id: string, prompt: string): Promise<string> {
    const task = this.live.get(id);
    if (!task) throw new TaskCanceledError(id);
    const reply = new Promise<string>((resolve, reject) => {
      task.deliverReply = resolve;
      task.signal.addEventListener('abort', () => reject(new TaskCanceledError(id)), { once: true });
    });
    const row = await this.transition(id, 'TASK_STATE_INPUT_REQUIRED', { prompt });
    if (!row) throw new TaskCanceledError(id);
    this.trace.write('task_input_required', { task_id: id, prompt });
    this.releaseSlot(id);
    return reply;
  }

  /**
   * Delivers a reply to a task waiting in TASK_STATE_INPUT_REQUIRED; the door's capacity is not consulted. Throws
   * TaskNotWaitingError when the task stopped waiting (another reply, a cancel) after the caller looked at it.
   */
  reply(row: TaskRow, text: string): Promise<TaskRow> {
    return this.serially(row.id, async () => {
      const current = this.store.row(row.id) ?? row;
      const task = this.live.get(row.id);
      const deliver = task?.deliverReply;
      if (current.state !== 'TASK_STATE_INPUT_REQUIRED') throw new TaskNotWaitingError(current);
      if (!task || !deliver) throw new Error(`task ${row.id} is not waiting for input`);
      task.deliverReply = null;
      const resumed = await this.store.save({ ...current, state: 'TASK_STATE_WORKING', prompt: null }, Date.now());
      this.events.emit('status', { row: resumed, text: 'resumed', stored: true });
      this.trace.write('task_resumed', { task_id: row.id, reply_chars: text.length });
      deliver(text);
      return resumed;
    });
  }

  /**
   * Cancels a live task: written CANCELED, with a residue artifact naming what the session still runs. Resolves null
   * when the task had ended (another cancel, its own ending) before this cancel's write: it is left unchanged.
   */
  async cancel(id: string): Promise<TaskRow | null> {
    const current = this.store.row(id)!;
    const queued = current.state === 'TASK_STATE_SUBMITTED' && !this.live.has(id);
    if (queued) {
      const at = this.queue.indexOf(id);
      if (at >= 0) this.queue.splice(at, 1);
      this.pending.delete(id);
    }
    const residue = this.background.residue();
    const row = await this.transition(id, 'TASK_STATE_CANCELED', {
      statusText: queued ? STATUS_TEXT.canceledQueued : STATUS_TEXT.canceled,
      residue: residue.length > 0 ? residue : null,
      murmur: this.endMetadata(id, Date.now()),
    });
    return row;
  }

  /** murmur.StopSession: cancels every live task; the door keeps serving. */
  async cancelAll(): Promise<string[]> {
    // Queued tasks first: canceling the running task frees the run slot, which would start the next queued one.
    const live = this.store.liveRows();
    const isQueued = (r: TaskRow) => r.state === 'TASK_STATE_SUBMITTED' && !this.live.has(r.id);
    const ids = [...live.filter(isQueued), ...live.filter((r) => !isQueued(r))].map((r) => r.id);
    const canceled: string[] = [];
    for (const id of ids) {
      if (await this.cancel(id)) canceled.push(id);
    }
    return canceled.sort();
  }

  /** Resolves when the task next settles (ends or pauses for input), or when the door closes. */
  waitSettled(id: string): Promise<TaskRow> {
    const row = this.store.row(id);
    if (!row || isSettledState(row.state) || this.closing) return Promise.resolve(row ?? this.store.row(id)!);
    return new Promise((resolve) => {
      const waiters = this.settleWaiters.get(id) ?? new Set();
      this.settleWaiters.set(id, waiters);
      waiters.add(resolve);
    });
  }

  private notifySettled(row: TaskRow): void {
    const waiters = this.settleWaiters.get(row.id);
    if (!waiters) return;
    this.settleWaiters.delete(row.id);
    for (const resolve of waiters) resolve(row);
  }

  /** The door is closing: refuse new tasks, cancel live ones, answer every held request with its task as it stands. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.queue.length = 0;
    for (const id of this.store.liveRows().map((r) => r.id)) await this.cancel(id).catch(() => undefined);
    for (const [id, waiters] of this.settleWaiters) {
      const row = this.store.row(id)!;
      for (const resolve of waiters) resolve(row);
    }
    this.settleWaiters.clear();
  }
}
