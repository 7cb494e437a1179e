import type { TaskState } from '@murmur/protocol';

/** One event of the session's stream, rendered once and written to every connection that takes it. */
export interface StreamEvent {
  /** The seed-001 event id, or null for events that carry none and never enter the replay buffer. */
  readonly id: bigint | null;
  readonly taskId: string | null;
  /** A murmur frame: sent only to streams that activated the stream extension. */
  readonly murmur: boolean;
  /** The StreamResponse as JSON: the `result` of the JSON-RPC response each data line holds. */
  readonly result: string;
  /** The stored change a status event reports; null for progress statuses, carriers and artifacts. */
  readonly change: number | null;
  /** The state a status event reports. */
  readonly state: TaskState | null;
}
