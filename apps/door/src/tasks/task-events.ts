import { EventEmitter } from 'node:events';
import type { QuotaWindowFrameFields, ToolArtifactFrameFields } from '@murmur/protocol';
import type { TaskRow } from './task.entity.js';

/**
 * A task's status as the lifecycle reports it. `progress` is a status the stream shows without a stored change
 * ("inference turn 2"); otherwise the row is a change just written. The flags name why a stored change happened
 * where the stream numbers it differently (seed 001, "Event ids"), so no reader compares status sentences.
 */
export interface TaskStatusEvent {
  row: TaskRow;
  progress: string | null;
  /** A reply moved the task from TASK_STATE_INPUT_REQUIRED back to work. */
  resumed?: true;
  /** An on_task_end hook reopened the task: after this status the task's counter starts again at 0 (seed 001). */
  reopened?: true;
  /** No reply came within lifecycle.input_timeout_secs: the task went back to work without one. */
  inputTimeout?: true;
  /** The task was canceled while it waited in the queue, before it started. */
  canceledQueued?: true;
}

/**
 * Everything a task does that a watcher may want to see, in the order it happens. A status event is emitted
 * only after the change it reports is written to the store.
 */
export interface TaskEventMap {
  status: [TaskStatusEvent];
  /** An inference call starts or returns: the chunk counter follows the task's around each call (seed 001). */
  inference: [{ taskId: string; phase: 'start' | 'end' }];
  text: [{ taskId: string; text: string; final: boolean }];
  thinking: [{ taskId: string; text: string }];
  'tool-call-started': [{ taskId: string; toolCallId: string; toolName: string; input: unknown }];
  'tool-call-progress': [{ taskId: string; toolCallId: string; stream: 'stdout' | 'stderr'; text: string }];
  artifact: [{ taskId: string; artifact: ToolArtifactFrameFields }];
  /** A harness reported its subscription windows: every window so far (docs/harness.md). */
  quota: [{ taskId: string; windows: QuotaWindowFrameFields[] }];
  /** A harness predicted the next prompt. */
  'suggested-prompt': [{ taskId: string; text: string }];
}

type EventName = keyof TaskEventMap;

/** What waits in a task's report queue: an event emitted meanwhile, or a version being committed and its report. */
type Held =
  | { kind: 'event'; name: EventName; payload: unknown }
  | { kind: 'version'; outcome: 'waiting' | 'committed' | Error; report: () => void; resolve: () => void; reject: (error: Error) => void };

/** A task's events held behind versions being committed, reported in the order they happened. */
interface ReportQueue {
  items: Held[];
  /** Index of the first item not yet reported. */
  at: number;
  /** A version failed: the events that followed it (made on top of it) are dropped until the next version. */
  dropping: boolean;
  drained: (() => void)[];
}

const taskIdOf = (name: EventName, payload: unknown): string =>
  name === 'status' ? (payload as TaskStatusEvent).row.id : (payload as { taskId: string }).taskId;

/**
 * The task event bus. A task may go on running while a version of it is being committed (its driver runs while its
 * TASK_STATE_WORKING commits): `afterCommit` then holds every later event of that task, and reports in order — the
 * version's report once its commit is durable, then what was emitted after it, then the next version once it is
 * durable. A task with nothing being committed emits at once.
 */
export class TaskEvents extends EventEmitter<TaskEventMap> {
  private readonly held = new Map<string, ReportQueue>();
  /** The task whose queue is being reported: its reports' own events go out directly, in place. */
  private reporting: string | null = null;

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  override emit<K extends EventName>(name: K, ...args: TaskEventMap[K]): boolean;
  // Every event carries one payload: taken as one argument, not a rest array, on the chunk path.
  override emit(name: EventName, payload: unknown): boolean {
    const id = taskIdOf(name, payload);
    const queue = id === this.reporting ? undefined : this.held.get(id);
    if (queue) {
      queue.items.push({ kind: 'event', name, payload });
      return true;
    }
    return (super.emit as (name: EventName, payload: unknown) => boolean)(name, payload);
  }

  /**
   * Holds the task's later events behind a version issued to the store. `report` runs once `durable` resolves and
   * everything held before it was reported; the promise settles after it. When `durable` rejects, `report` never
   * runs, the promise rejects with that error, and the events held behind the version are dropped.
   */
  afterCommit(taskId: string, durable: Promise<void>, report: () => void): Promise<void> {
    let queue = this.held.get(taskId);
    if (!queue) {
      queue = { items: [], at: 0, dropping: false, drained: [] };
      this.held.set(taskId, queue);
    }
    const reported = new Promise<void>((resolve, reject) => {
      const item: Held = { kind: 'version', outcome: 'waiting', report, resolve, reject };
      queue.items.push(item);
      durable.then(
        () => {
          item.outcome = 'committed';
          this.drain(taskId);
        },
        (error: unknown) => {
          item.outcome = error instanceof Error ? error : new Error(String(error));
          this.drain(taskId);
        },
      );
    });
    return reported;
  }

  /** Resolves once every version of the task issued so far has been reported (or failed). */
  drained(taskId: string): Promise<void> {
    const queue = this.held.get(taskId);
    if (!queue || queue.at === queue.items.length) return Promise.resolve();
    return new Promise((resolve) => queue.drained.push(resolve));
  }

  /** The task stopped running: nothing more is emitted for it, so a queue left dropping after a failure is let go. */
  forget(taskId: string): void {
    const queue = this.held.get(taskId);
    if (queue && queue.at === queue.items.length) this.held.delete(taskId);
  }

  private drain(taskId: string): void {
    const queue = this.held.get(taskId);
    if (!queue) return;
    const outer = this.reporting;
    this.reporting = taskId;
    try {
      while (queue.at < queue.items.length) {
        const item = queue.items[queue.at];
        if (item.kind === 'version' && item.outcome === 'waiting') return;
        queue.at++;
        if (item.kind === 'event') {
          if (!queue.dropping) this.deliver(item.name, item.payload);
        } else if (item.outcome === 'committed') {
          queue.dropping = false;
          try {
            item.report();
            item.resolve();
          } catch (error) {
            item.reject(error instanceof Error ? error : new Error(String(error)));
          }
        } else {
          queue.dropping = true;
          item.reject(item.outcome as Error);
        }
      }
      // Everything was reported. After a failure the queue stays, dropping, until the next version or `forget`.
      if (!queue.dropping) this.held.delete(taskId);
      else {
        queue.items = [];
        queue.at = 0;
      }
      for (const resolve of queue.drained.splice(0)) resolve();
    } finally {
      this.reporting = outer;
    }
  }

  /** An event released from the queue; a listener's exception stays with the listener, as the event was already due. */
  private deliver(name: EventName, payload: unknown): void {
    try {
      (super.emit as (name: EventName, payload: unknown) => boolean)(name, payload);
    } catch {
      // Nobody is left to throw to: the code that emitted the event has moved on.
    }
  }
}
