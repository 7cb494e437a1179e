import { isSettledState, type MurmurTaskMetadata, type ResidueItem, type TaskState, TERMINAL_STATES } from '@murmur/protocol';
import type { MessageTrust } from '../auth/message-trust.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { ResidueSource } from './residue-source.js';
import type { TaskEndingHold } from './task-ending-hold.js';
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

/**
 * The abort reason of a task that ended: one shared AbortError, since abort() without a reason builds a new
 * DOMException, with its stack, for every task (a measurable share of a short task's CPU).
 */
const TASK_ENDED = new DOMException('the task ended', 'AbortError');

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

/** How a wait for input ended: a reply (its text as sent, and who sent it), or the input timeout. */
export type InputOutcome = { kind: 'reply'; text: string; trust: MessageTrust } | { kind: 'timeout'; waitedSecs: number };

/** A task that has started: its cancel signal, and where a reply to its question goes. */
interface LiveTask {
  readonly abort: AbortController;
  deliverReply: ((outcome: InputOutcome) => void) | null;
}

type EndingFields = Partial<Pick<TaskRow, 'statusText' | 'response' | 'prompt' | 'residue' | 'murmur'>>;

export interface TaskLifecycleDeps {
  store: TaskStore;
  events: TaskEvents;
  trace: TraceWriter;
  residue: readonly ResidueSource[];
  /** What a task's ending waits for before it is written (formations/ adds its member calls); none by default. */
  endingHolds?: readonly TaskEndingHold[];
}

/**
 * Every transition of a task after it was admitted: written to the store before it is reported, one task's writes
 * in order, held answers released when a task settles. Admission and the run queue are the TaskQueue's.
 */
export class TaskLifecycle {
  private readonly live = new Map<string, LiveTask>();
  private readonly settleWaiters = new Map<string, Set<(row: TaskRow) => void>>();
  private closing = false;
  private readonly settlingListeners: ((id: string) => void)[] = [];
  /** Per task, its ending's hold while one is waited for: a second ending meanwhile (a cancel) waits for the same. */
  private readonly holds = new Map<string, Promise<void>>();

  constructor(private readonly deps: TaskLifecycleDeps) {}

  /**
   * Called when a task's write that ends it or pauses it for input is issued, before it commits. The run queue
   * hands the slot on here, so the next task's TASK_STATE_WORKING joins the same commit as this ending (group commit,
   * tasks/task-writer.ts) instead of waiting a round trip for it. The next task's driver runs at once; what it
   * reports is held until its TASK_STATE_WORKING — and so, in the same or an earlier group, this ending — is durable.
   */
  onSettling(listener: (id: string) => void): void {
    this.settlingListeners.push(listener);
  }

  /** A task starts running: its abort signal is live until `finished`. */
  started(id: string): AbortSignal {
    const task: LiveTask = { abort: new AbortController(), deliverReply: null };
    this.live.set(id, task);
    return task.abort.signal;
  }

  finished(id: string): void {
    this.live.delete(id);
    this.deps.events.forget(id);
  }

  isRunning(id: string): boolean {
    return this.live.has(id);
  }

  /** What the session leaves running, from every residue source. */
  residue(): ResidueItem[] {
    return this.deps.residue.flatMap((source) => source.residue());
  }

  /**
   * Reports the TASK_STATE_WORKING of a task that started as it was admitted (written in the same commit as its
   * TASK_STATE_SUBMITTED, TaskStore.saveStarting), right after its SUBMITTED was reported and before anything else
   * can reach the task: nothing knew its id before that commit.
   */
  reportStarted(row: TaskRow): void {
    this.deps.events.emit('status', { row, progress: null });
  }

  /**
   * Writes a transition of a task that is not yet terminal; a task already ended (canceled meanwhile) is left alone
   * and resolves null once that ending is reported. The change is decided on the task's newest version, issued or
   * committed, and issued at once: the task may go on while it commits (its driver runs while its TASK_STATE_WORKING
   * commits), but the change is reported — status event, held answers, the mirror readers see — only once it is
   * durable and after every earlier change of the task (TaskEvents.afterCommit). Resolves with the row then.
   */
  transition(id: string, state: TaskState, fields: EndingFields, flags: { canceledQueued?: true } = {}): Promise<TaskRow | null> {
    const { store, events } = this.deps;
    const current = store.latest(id);
    if (!current || TERMINAL_STATES.has(current.state)) return events.drained(id).then(() => null);
    const { row, durable } = store.issue({ ...current, statusText: null, prompt: null, ...fields, state }, Date.now());
    if (isSettledState(state)) for (const listener of this.settlingListeners) listener(id);
    return events
      .afterCommit(id, durable, () => {
        store.publish(row);
        events.emit('status', { row, progress: null, ...flags });
        if (isSettledState(state)) this.notifySettled(row);
        if (TERMINAL_STATES.has(state)) this.afterEnd(row);
      })
      .then(
        () => row,
        (error: unknown) => {
          // A task that is not running emits nothing more: its report queue, left dropping by the failure, goes.
          if (!this.live.has(id)) events.forget(id);
          throw error;
        },
      );
  }

  /** Stops a running task's driver (its TASK_STATE_WORKING could not be written): its signal aborts. */
  stop(id: string): void {
    this.live.get(id)?.abort.abort(TASK_ENDED);
  }

  private afterEnd(row: TaskRow): void {
    const end = {
      task_id: row.id,
      state: row.state,
      status: row.statusText,
      running_commands: row.murmur?.runningCommands ?? [],
      // A task a formation member ended with end-without-answer (seed 004): never a failure of the session.
      ...(row.murmur?.noAnswer ? { exit_status: 'no_answer' as const } : {}),
    };
    // A completed task's answer is recorded with its end, in the same write (only `complete` completes a task).
    if (row.state === 'TASK_STATE_COMPLETED')
      this.deps.trace.writeAll([
        ['task_end', end],
        ['task_result', { task_id: row.id, chars: (row.response ?? '').length }],
      ]);
    else this.deps.trace.write('task_end', end);
    this.live.get(row.id)?.abort.abort(TASK_ENDED);
  }

  private endMetadata(id: string, nowMs: number, answers: Pick<MurmurTaskMetadata, 'noAnswer' | 'noAnswerBelow'> = {}): MurmurTaskMetadata | null {
    const metadata: MurmurTaskMetadata = {};
    if (answers.noAnswer) metadata.noAnswer = true;
    if (answers.noAnswerBelow && answers.noAnswerBelow.length > 0) metadata.noAnswerBelow = answers.noAnswerBelow;
    for (const source of this.deps.residue) {
      const runningCommands = source.runningCommandsOf(id, nowMs);
      if (runningCommands) {
        metadata.runningCommands = runningCommands;
        break;
      }
    }
    return Object.keys(metadata).length > 0 ? metadata : null;
  }

  /**
   * What a task's ending waits for before it is written (TaskEndingHold), or null: then it is written at once. A held
   * task is stopped first, its signal aborted as an ending aborts it, so that nothing more is done in it meanwhile.
   */
  private endingHold(id: string): Promise<void> | null {
    const held = this.holds.get(id);
    if (held) return held;
    const waits = (this.deps.endingHolds ?? []).map((hold) => hold.beforeEnd(id)).filter((wait) => wait !== null);
    if (waits.length === 0) return null;
    const hold = Promise.all(waits).then(() => {
      this.holds.delete(id);
    });
    // Set before the abort, whose listeners may already ask `ending`.
    this.holds.set(id, hold);
    this.live.get(id)?.abort.abort(TASK_ENDED);
    return hold;
  }

  /** Resolves once the task's ending is no longer held (at once when it is not): its runner keeps the run slot until then. */
  ending(id: string): Promise<void> {
    return this.holds.get(id) ?? Promise.resolve();
  }

  /** A progress status the stream shows (e.g. "inference turn 2"); the stored state does not change. */
  progress(id: string, text: string): void {
    const row = this.deps.store.latest(id);
    if (row && row.state === 'TASK_STATE_WORKING') this.deps.events.emit('status', { row, progress: text });
  }

  /** A hook reopened the task (docs/agent-loop.md, "Hooks"): its stream shows `text`, then the new attempt's ids start at 0. */
  reopened(id: string, text: string): void {
    const row = this.deps.store.latest(id);
    if (row && row.state === 'TASK_STATE_WORKING') this.deps.events.emit('status', { row, progress: text, reopened: true });
  }

  /** `answers`: what a formation member's task says of the answers it lacks (seed 000, "Task metadata"). */
  async complete(id: string, response: string, answers: Pick<MurmurTaskMetadata, 'noAnswerBelow'> = {}): Promise<void> {
    const hold = this.endingHold(id);
    if (hold) await hold;
    // Its task_end and task_result trace records are written once the ending is durable (afterEnd).
    await this.transition(id, 'TASK_STATE_COMPLETED', { statusText: STATUS_TEXT.completed, response, murmur: this.endMetadata(id, Date.now(), answers) });
  }

  async fail(id: string, message: string, answers: Pick<MurmurTaskMetadata, 'noAnswer' | 'noAnswerBelow'> = {}): Promise<void> {
    const hold = this.endingHold(id);
    if (hold) await hold;
    await this.transition(id, 'TASK_STATE_FAILED', { statusText: message, murmur: this.endMetadata(id, Date.now(), answers) });
  }

  /**
   * Pauses the task for input and resolves with the reply, or with the timeout once `timeoutMs` pass without one (null:
   * no limit): the task is then written back to TASK_STATE_WORKING, reported as `input-timeout` (docs/agent-loop.md,
   * "Asking for input"). Rejects with TaskCanceledError when it is canceled meanwhile.
   */
  async awaitReply(id: string, prompt: string, timeoutMs: number | null = null): Promise<InputOutcome> {
    const task = this.live.get(id);
    if (!task) throw new TaskCanceledError(id);
    let timer: NodeJS.Timeout | undefined;
    const outcome = new Promise<InputOutcome>((resolve, reject) => {
      task.deliverReply = resolve;
      task.abort.signal.addEventListener('abort', () => reject(new TaskCanceledError(id)), { once: true });
    });
    // A cancel written before this pause aborts the task while the pause is still being written: the reply then
    // rejects before anyone awaits it, and an unhandled rejection would end the process. The caller still gets it.
    outcome.catch(() => undefined);
    const row = await this.transition(id, 'TASK_STATE_INPUT_REQUIRED', { prompt });
    if (!row) throw new TaskCanceledError(id);
    this.deps.trace.write('task_input_required', { task_id: id, prompt });
    if (timeoutMs !== null) {
      const startedMs = Date.now();
      timer = setTimeout(() => this.inputTimedOut(id, task, startedMs), timeoutMs);
    }
    try {
      return await outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /** No reply came in time: the wait ends, the task goes back to work (stored, then reported as `input-timeout`). */
  private inputTimedOut(id: string, task: LiveTask, startedMs: number): void {
    const { store, events, trace } = this.deps;
    const current = store.latest(id);
    const deliver = task.deliverReply;
    if (current?.state !== 'TASK_STATE_INPUT_REQUIRED' || !deliver) return;
    task.deliverReply = null;
    const waitedSecs = Math.floor((Date.now() - startedMs) / 1000);
    const { row: resumed, durable } = store.issue({ ...current, state: 'TASK_STATE_WORKING', prompt: null }, Date.now());
    void events
      .afterCommit(id, durable, () => {
        store.publish(resumed);
        events.emit('status', { row: resumed, progress: null, inputTimeout: true });
        trace.write('task_input_timeout', { task_id: id, waited_secs: waitedSecs });
        deliver({ kind: 'timeout', waitedSecs });
      })
      .catch(() => undefined);
  }

  /**
   * Delivers a reply to a task waiting in TASK_STATE_INPUT_REQUIRED; the door's capacity is not consulted. Throws
   * TaskNotWaitingError when the task stopped waiting (another reply, a cancel) after the caller looked at it.
   */
  reply(row: TaskRow, text: string, trust: MessageTrust): Promise<TaskRow> {
    const { store, events, trace } = this.deps;
    const current = store.latest(row.id) ?? row;
    const task = this.live.get(row.id);
    const deliver = task?.deliverReply;
    // Answered with the task as it was reported, once whatever it issued meanwhile is.
    if (current.state !== 'TASK_STATE_INPUT_REQUIRED')
      return events.drained(row.id).then(() => Promise.reject(new TaskNotWaitingError(store.row(row.id) ?? current)));
    if (!task || !deliver) return Promise.reject(new Error(`task ${row.id} is not waiting for input`));
    task.deliverReply = null;
    const { row: resumed, durable } = store.issue({ ...current, state: 'TASK_STATE_WORKING', prompt: null }, Date.now());
    return events
      .afterCommit(row.id, durable, () => {
        store.publish(resumed);
        events.emit('status', { row: resumed, progress: null, resumed: true });
        trace.write('task_resumed', { task_id: row.id, reply_chars: text.length, reply: text });
        deliver({ kind: 'reply', text, trust });
      })
      .then(() => resumed);
  }

  /**
   * Cancels a live task: written CANCELED, with a residue artifact naming what the session still runs. Resolves null
   * when the task had ended (another cancel, its own ending) before this cancel's write: it is left unchanged. An
   * ending hold (an offer on its way) is waited for first, as for any ending.
   */
  async cancel(id: string, queued: boolean): Promise<TaskRow | null> {
    const hold = this.endingHold(id);
    if (hold) await hold;
    const residue = this.residue();
    return this.transition(
      id,
      'TASK_STATE_CANCELED',
      {
        statusText: queued ? STATUS_TEXT.canceledQueued : STATUS_TEXT.canceled,
        residue: residue.length > 0 ? residue : null,
        murmur: this.endMetadata(id, Date.now()),
      },
      queued ? { canceledQueued: true } : {},
    );
  }

  /** Resolves when the task next settles (ends or pauses for input), or when the door closes. */
  async waitSettled(id: string): Promise<TaskRow> {
    const row = this.deps.store.row(id);
    // Not in the mirror: an ended task that fell out of it, so settled; read back from the store.
    if (!row) return (await this.deps.store.read(id))!;
    if (isSettledState(row.state) || this.closing) return row;
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

  /** The door is closing: every held request is answered with its task as it stands, now and from here on. */
  releaseHeld(): void {
    this.closing = true;
    for (const [id, waiters] of this.settleWaiters) {
      const answer = (row: TaskRow | undefined) => {
        if (row) for (const resolve of waiters) resolve(row);
      };
      const row = this.deps.store.row(id);
      if (row) answer(row);
      else void this.deps.store.read(id).then(answer, () => undefined);
    }
    this.settleWaiters.clear();
  }
}
