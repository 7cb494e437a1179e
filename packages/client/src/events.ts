/**
 * What a stream yields: the door's events, typed (docs/streaming.md), and the client's own connection events.
 */
import type { Message, MurmurFrame, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@murmur/protocol';

interface EventBase {
  /**
   * The event's SSE `id:` as a decimal string (ids are unsigned 64-bit), or null for events that carry none (the
   * opening task, murmur frames without a task, carriers of gap/lagged). Ids are labels, not a sequence: two tasks
   * both count 0, 1, 2…; never subtract them or read a jump as loss.
   */
  id: string | null;
}

/** The task as GetTask answers it: the first event of SendStreamingMessage and SubscribeToTask. */
export interface TaskEvent extends EventBase {
  kind: 'task';
  taskId: string;
  response: { task: Task };
  frame: null;
  /**
   * True for the snapshot that opens a resumed connection (the SubscribeToTask a dropped stream reconnects with, or
   * the GetTask read when the task ended while the client was away); false for the stream's first `task` event. A
   * stream's first task event comes once: skip `resumed` ones to see it once, or apply them to stay current
   * (packages/client README, "Reconnect").
   */
  resumed: boolean;
}

/** A standard A2A status update: progress (`inference turn 2`), input requests, the terminal status. */
export interface StatusEvent extends EventBase {
  kind: 'status';
  taskId: string;
  response: { statusUpdate: TaskStatusUpdateEvent };
  frame: null;
}

/** A standard A2A artifact update: the `response` before COMPLETED, the `residue` before CANCELED. */
export interface ArtifactEvent extends EventBase {
  kind: 'artifact';
  taskId: string;
  response: { artifactUpdate: TaskArtifactUpdateEvent };
  frame: null;
}

/** A message event that holds no murmur frame. */
export interface MessageStreamEvent extends EventBase {
  kind: 'message';
  taskId: string | null;
  response: { message: Message };
  frame: null;
}

/**
 * A murmur frame (text, thinking, tool calls, artifact, gap, lagged, connection-ack, capsule-closed). A frame of a
 * task rides a carrier statusUpdate of that task; a frame with no task is a message event (taskId null). `gap`
 * ("events before this may be gone") and `lagged` ("this connection lost `dropped` events") are always surfaced.
 */
export interface FrameEvent extends EventBase {
  kind: 'frame';
  taskId: string | null;
  response: { statusUpdate: TaskStatusUpdateEvent } | { message: Message };
  frame: MurmurFrame;
}

export type StreamDataEvent = TaskEvent | StatusEvent | ArtifactEvent | MessageStreamEvent | FrameEvent;

export type ConnectionState = 'open' | 'reconnecting' | 'lost' | 'closed';

export type ConnectionReason =
  /** The body ended before the stream's natural end (a terminal status; capsule-closed on WatchSession). */
  | 'ended-early'
  /** The request or the body failed: network error, reset, or an HTTP answer worth retrying. */
  | 'network-error'
  /** No bytes, event or `:heartbeat`, within heartbeatTimeoutMs. */
  | 'heartbeat-timeout'
  /** The consumer stopped pulling for so long that the client dropped the connection to bound its memory. */
  | 'consumer-behind'
  /** `lost`: an event was larger than `maxEventSize`. */
  | 'event-too-large'
  /** `closed`: the stream reached its natural end. */
  | 'natural-end';

/** The client's own events about the connection; never sent by the door. */
export interface ConnectionEvent {
  kind: 'connection';
  state: ConnectionState;
  /** Why the state changed; absent on `open`. */
  reason?: ConnectionReason;
  /** `open`: 0 for the first connection, n for the n-th reconnect. `reconnecting`: which retry this is (1-based). */
  attempt: number;
  /** `reconnecting`: how long the client waits before it. @unit ms */
  delayMs?: number;
  /** The last SSE id delivered so far: what the next reconnect sends as Last-Event-ID. */
  lastEventId: string | null;
  /** `reconnecting` and `lost`: the failure behind it. */
  error?: unknown;
}

export type MurmurStreamEvent = StreamDataEvent | ConnectionEvent;
