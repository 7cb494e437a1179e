import { EventEmitter } from 'node:events';
import type { TaskRow } from './task.entity.js';

import type { ToolArtifactFrameFields } from '@murmur/protocol';

/** The artifact frame's keys (seed 001, "artifact"), camelCased as the stream extension carries them. */
export type ToolArtifact = ToolArtifactFrameFields;

/**
 * Everything a task does that a watcher may want to see, in the order it happens. A status event is emitted
 * only after the change it reports is written to the store.
 */
export interface TaskEventMap {
  /** A stored change of state (row is the new version), or a progress status such as "inference turn 2". */
  status: [{ row: TaskRow; text: string | null; stored: boolean }];
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
