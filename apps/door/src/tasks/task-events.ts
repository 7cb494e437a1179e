import { EventEmitter } from 'node:events';
import type { ToolArtifact } from '../tools/tool-call.js';
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
  artifact: [{ taskId: string; artifact: ToolArtifact }];
}

export class TaskEvents extends EventEmitter<TaskEventMap> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}
