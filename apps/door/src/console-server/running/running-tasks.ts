/**
 * One door's live tasks as its session stream tells them (docs/console.md, "Running now"): at most
 * RUNNING_TASKS_PER_DOOR_MAX followed, each with what it is doing now. A terminal status ends a task's place; text and
 * thinking chunks are not kept.
 */
import type { StreamDataEvent } from '@murmur/client';
import {
  ARTIFACT_ID,
  isId,
  isTerminalState,
  partsText,
  RUNNING_TASKS_PER_DOOR_MAX,
  RUNNING_TASKS_SHOWN,
  RUNNING_TEXT_MAX,
  type RunningActivity,
  type RunningTask,
  type Task,
  type TaskState,
  type TaskStatusUpdateEvent,
} from '@murmur/protocol';

const TURN = /^inference turn (\d+)$/;

/** Text cut to RUNNING_TEXT_MAX characters (an ellipsis marks the cut). */
export function clip(text: string): string {
  return text.length <= RUNNING_TEXT_MAX ? text : `${text.slice(0, RUNNING_TEXT_MAX - 1)}…`;
}

/** The creation time a task id's UUIDv7 holds (its first 48 bits: milliseconds since the epoch), or null. */
export function createdAtOfId(taskId: string): string | null {
  if (!isId('task', taskId)) return null;
  const ms = Number.parseInt(taskId.slice(4, 16), 16);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}

interface Followed extends RunningTask {
  /** The last inference turn seen, for the activity after a tool call returns. */
  turn: number | null;
}

export interface RunningTasksView {
  counts: Partial<Record<TaskState, number>>;
  truncated: boolean;
  tasks: RunningTask[];
  moreTasks: number;
}

export class RunningTasks {
  readonly #tasks = new Map<string, Followed>();
  #truncated = false;
  readonly #max: number;

  constructor(max = RUNNING_TASKS_PER_DOOR_MAX) {
    this.#max = max;
  }

  get size(): number {
    return this.#tasks.size;
  }

  /**
   * Starts again from a ListTasks read of the door's live tasks: those no longer listed go, the listed ones keep the
   * activity the stream told (a task new to the table reads its prompt, or `unknown`).
   */
  seed(tasks: readonly Task[]): void {
    const kept = new Map(this.#tasks);
    this.#tasks.clear();
    this.#truncated = false;
    for (const task of tasks) {
      if (isTerminalState(task.status.state)) continue;
      const before = kept.get(task.id);
      if (before) {
        this.#put({ ...before, state: task.status.state });
        continue;
      }
      const at = task.status.timestamp ?? new Date().toISOString();
      const followed = this.#fresh(task.id, task.contextId, task.status.state, at);
      if (task.status.state === 'TASK_STATE_INPUT_REQUIRED') {
        const prompt = task.artifacts?.find((a) => a.artifactId === ARTIFACT_ID.prompt);
        followed.activity = { kind: 'input', prompt: prompt ? clip(partsText(prompt.parts)) : null };
      }
      this.#put(followed);
    }
  }

  /** Applies one event of the session stream; true when what the table shows changed. */
  apply(event: StreamDataEvent): boolean {
    if (event.kind === 'task') {
      const { task } = event.response;
      return this.#status(task.id, task.contextId, task.status.state, task.status.timestamp ?? new Date().toISOString(), null);
    }
    if (event.kind === 'status') return this.#statusUpdate(event.response.statusUpdate);
    if (event.kind !== 'frame' || event.taskId === null || !('statusUpdate' in event.response)) return false;
    const update = event.response.statusUpdate;
    // A carrier is a status of the task in its current state: it can add a task the table did not see start.
    const changed = this.#status(update.taskId, update.contextId, update.status.state, update.status.timestamp ?? new Date().toISOString(), null);
    const task = this.#tasks.get(update.taskId);
    if (!task) return changed;
    const { frame } = event;
    const at = update.status.timestamp ?? new Date().toISOString();
    if (frame.frame === 'tool-call-started') {
      task.activity = { kind: 'tool', tool: clip(frame.toolName), toolCallId: frame.toolCallId, turn: task.turn, startedAt: at };
      task.activityAt = at;
      return true;
    }
    if (frame.frame === 'artifact' && task.activity.kind === 'tool' && task.activity.toolCallId === frame.artifact.toolCallId) {
      task.activity = task.turn === null ? { kind: 'unknown' } : { kind: 'turn', turn: task.turn };
      task.activityAt = at;
      return true;
    }
    return changed;
  }

  /** Counts by state and the tasks a snapshot shows: waiting for input first, then the oldest. */
  view(shown = RUNNING_TASKS_SHOWN): RunningTasksView {
    const counts: Partial<Record<TaskState, number>> = {};
    for (const task of this.#tasks.values()) counts[task.state] = (counts[task.state] ?? 0) + 1;
    const ordered = [...this.#tasks.values()].sort(
      (a, b) => Number(b.state === 'TASK_STATE_INPUT_REQUIRED') - Number(a.state === 'TASK_STATE_INPUT_REQUIRED') || a.taskId.localeCompare(b.taskId),
    );
    const tasks = ordered.slice(0, shown).map(({ turn: _turn, ...task }) => ({ ...task, activity: { ...task.activity } as RunningActivity }));
    return { counts, truncated: this.#truncated, tasks, moreTasks: Math.max(0, ordered.length - shown) };
  }

  clear(): void {
    this.#tasks.clear();
    this.#truncated = false;
  }

  #statusUpdate(update: TaskStatusUpdateEvent): boolean {
    const text = update.status.message ? partsText(update.status.message.parts) : '';
    return this.#status(update.taskId, update.contextId, update.status.state, update.status.timestamp ?? new Date().toISOString(), text);
  }

  /** A status of the task; `text` is its message (null for a carrier or a task event, which say no more than the state). */
  #status(taskId: string, contextId: string, state: TaskState, at: string, text: string | null): boolean {
    if (isTerminalState(state)) return this.#tasks.delete(taskId);
    let task = this.#tasks.get(taskId);
    if (!task) {
      if (this.#tasks.size >= this.#max) {
        this.#truncated = true;
        return false;
      }
      task = this.#fresh(taskId, contextId, state, at);
      this.#put(task);
    }
    const stateChanged = task.state !== state;
    task.state = state;
    if (text === null) {
      if (stateChanged && state === 'TASK_STATE_SUBMITTED') task.activity = { kind: 'queued' };
      if (stateChanged) task.activityAt = at;
      return stateChanged;
    }
    task.activityAt = at;
    if (state === 'TASK_STATE_SUBMITTED') {
      task.activity = { kind: 'queued' };
      return true;
    }
    if (state === 'TASK_STATE_INPUT_REQUIRED') {
      task.activity = { kind: 'input', prompt: text === '' ? null : clip(text) };
      return true;
    }
    const turn = TURN.exec(text);
    if (turn) {
      task.turn = Number(turn[1]);
      task.activity = { kind: 'turn', turn: task.turn };
      return true;
    }
    if (text !== '') task.activity = { kind: 'status', text: clip(text) };
    return true;
  }

  #fresh(taskId: string, contextId: string, state: TaskState, at: string): Followed {
    return {
      taskId,
      contextId,
      state,
      createdAt: createdAtOfId(taskId),
      activityAt: at,
      activity: state === 'TASK_STATE_SUBMITTED' ? { kind: 'queued' } : { kind: 'unknown' },
      turn: null,
    };
  }

  #put(task: Followed): void {
    if (this.#tasks.size >= this.#max && !this.#tasks.has(task.taskId)) {
      this.#truncated = true;
      return;
    }
    this.#tasks.set(task.taskId, task);
  }
}
