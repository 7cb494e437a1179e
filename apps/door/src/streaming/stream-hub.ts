import {
  type Artifact,
  carrierEvent,
  formatTimestamp,
  type MurmurFrame,
  STREAM_EXTENSION_URI,
  type StreamResponse,
  type TaskState,
  TERMINAL_STATES,
} from '@murmur/protocol';
import { newId } from '../common/ids.js';
import type { TaskRow } from '../tasks/task.entity.js';
import type { TaskEvents, TaskStatusEvent } from '../tasks/task-events.js';
import type { TaskStore } from '../tasks/task-store.js';
import { artifactsOf, statusOf } from '../tasks/wire-task.js';
import { EventIdCounters } from './event-ids.js';
import { ReplayBuffer, type ReplayResult } from './replay-buffer.js';
import type { StreamEvent } from './stream-event.js';

export type StreamListener = (event: StreamEvent) => void;

const CARRIER_METADATA_KEY = JSON.stringify(STREAM_EXTENSION_URI);

/**
 * The session's one stream: turns every task event into a StreamEvent with its seed-001 id, keeps the replay
 * buffer, and hands each event to every open connection. Rendered once per event, whatever the fan-out.
 */
export class StreamHub {
  private readonly ids = new EventIdCounters();
  private readonly buffer = new ReplayBuffer();
  private readonly listeners = new Set<StreamListener>();
  private readonly closeListeners = new Set<() => void>();
  private closed = false;
  /** The last carrier's task version and its JSON up to the timestamp: a burst of chunks renders it once. */
  private carrierRow: TaskRow | null = null;
  private carrierHead = '';
  /** Date.now() of the last carrier timestamp and its RFC 3339 text: one toISOString per millisecond, not per chunk. */
  private stampMs = -1;
  private stamp = '';

  constructor(
    private readonly store: TaskStore,
    events: TaskEvents,
  ) {
    events.on('status', (e) => this.onStatus(e));
    events.on('inference', ({ taskId, phase }) => (phase === 'start' ? this.ids.inferenceStarts(taskId) : this.ids.inferenceEnds(taskId)));
    events.on('text', ({ taskId, text, final }) => this.textFrame(taskId, this.ids.nextChunk(taskId), text, final));
    events.on('thinking', ({ taskId, text }) => this.frame(taskId, this.ids.nextChunk(taskId), { frame: 'thinking', text, final: false }));
    events.on('tool-call-started', ({ taskId, toolCallId, toolName, input }) =>
      this.frame(taskId, this.ids.nextChunk(taskId), { frame: 'tool-call-started', toolCallId, toolName, input: input as never }),
    );
    events.on('tool-call-progress', ({ taskId, toolCallId, stream, text }) =>
      this.frame(taskId, this.ids.nextChunk(taskId), { frame: 'tool-call-progress', toolCallId, stream, text }),
    );
    events.on('artifact', ({ taskId, artifact }) => this.frame(taskId, this.ids.nextTask(taskId), { frame: 'artifact', artifact }));
    // A harness's own two (docs/harness.md): numbered as chunks are, between its turns' other frames.
    events.on('quota', ({ taskId, windows }) => this.frame(taskId, this.ids.nextChunk(taskId), { frame: 'quota', windows }));
    events.on('suggested-prompt', ({ taskId, text }) => this.frame(taskId, this.ids.nextChunk(taskId), { frame: 'suggested-prompt', text }));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get connectionCount(): number {
    return this.listeners.size;
  }

  /** Subscribes to live events; read the replay in the same tick so that nothing falls between the two. */
  subscribe(listener: StreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  replay(from: bigint | null): ReplayResult {
    return this.buffer.replay(from);
  }

  /** A task stream's replay: the gap judged on the followed task's events (ReplayBuffer.replayTask). */
  replayTask(taskId: string, from: bigint): ReplayResult {
    return this.buffer.replayTask(taskId, from);
  }

  /** The capsule closes its stream: every watcher is told capsule-closed, and nothing more is written. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of [...this.closeListeners]) listener();
    this.closeListeners.clear();
    this.listeners.clear();
  }

  /** A carrier of `frame` for the task as it stands now. */
  carrier(taskId: string, frame: MurmurFrame): StreamResponse | null {
    const row = this.store.row(taskId);
    return row ? carrierEvent(row.id, row.contextId, row.state, formatTimestamp(Date.now()), frame) : null;
  }

  private publish(event: StreamEvent): void {
    if (this.closed) return;
    if (event.id !== null) this.buffer.push(event);
    for (const listener of this.listeners) listener(event);
  }

  private frame(taskId: string, id: bigint, frame: MurmurFrame): void {
    const row = this.store.row(taskId);
    if (row) this.publish({ id, taskId, murmur: true, result: this.carrierJson(row, JSON.stringify(frame)), change: null, state: null });
  }

  /** A text chunk, the most frequent frame: JSON.stringify({ frame: 'text', text, final }) without building the frame. */
  private textFrame(taskId: string, id: bigint, text: string, final: boolean): void {
    const row = this.store.row(taskId);
    const frame = `{"frame":"text","text":${JSON.stringify(text)},"final":${final ? 'true' : 'false'}}`;
    if (row) this.publish({ id, taskId, murmur: true, result: this.carrierJson(row, frame), change: null, state: null });
  }

  /**
   * JSON.stringify(this.carrier(…)) for the chunk path, byte for byte, without building the carrier: the part
   * before the timestamp is rendered once per task version (a row object is never changed, only replaced), the
   * timestamp once per millisecond, and only the frame is stringified per event (`frameJson`).
   */
  private carrierJson(row: TaskRow, frameJson: string): string {
    if (row !== this.carrierRow) {
      this.carrierRow = row;
      this.carrierHead = `{"statusUpdate":{"taskId":${JSON.stringify(row.id)},"contextId":${JSON.stringify(row.contextId)},"status":{"state":${JSON.stringify(row.state)},"timestamp":"`;
    }
    const now = Date.now();
    if (now !== this.stampMs) {
      this.stampMs = now;
      this.stamp = formatTimestamp(now);
    }
    return `${this.carrierHead}${this.stamp}"},"metadata":{${CARRIER_METADATA_KEY}:${frameJson}}}}`;
  }

  private status(row: TaskRow, id: bigint | null, state: TaskState, text: string | null, timestampMs: number, change: number | null): void {
    // A stored status reads as GetTask shows it; a progress status carries its own text and when it was written.
    const status = text === null ? statusOf(row) : { state, message: this.agentMessage(row, text), timestamp: formatTimestamp(timestampMs) };
    const result: StreamResponse = { statusUpdate: { taskId: row.id, contextId: row.contextId, status } };
    this.publish({ id, taskId: row.id, murmur: false, result: JSON.stringify(result), change, state });
  }

  private artifact(row: TaskRow, id: bigint, artifact: Artifact): void {
    const result: StreamResponse = { artifactUpdate: { taskId: row.id, contextId: row.contextId, artifact } };
    this.publish({ id, taskId: row.id, murmur: false, result: JSON.stringify(result), change: null, state: null });
  }

  private agentMessage(row: TaskRow, text: string) {
    return { messageId: newId('message'), contextId: row.contextId, taskId: row.id, role: 'ROLE_AGENT' as const, parts: [{ text, mediaType: 'text/plain' }] };
  }

  private onStatus({ row, progress, resumed, inputTimeout, reopened, canceledQueued }: TaskStatusEvent): void {
    switch (row.state) {
      case 'TASK_STATE_SUBMITTED':
        // Not a seed-001 frame: live only, with no id, so the first working status keeps id 0.
        this.status(row, null, row.state, null, row.statusTimestampMs, row.change);
        return;
      case 'TASK_STATE_WORKING':
        if (progress !== null) {
          this.status(row, this.ids.nextTask(row.id), row.state, progress, Date.now(), null);
          // A reopened attempt's frames count from 0 again (seed 001, "A final status is the last frame …").
          if (reopened) this.ids.restart(row.id);
        } else if (resumed) this.status(row, this.ids.nextInputWait(row.id), row.state, 'resumed', row.statusTimestampMs, row.change);
        // Seed 001's failed/input-timeout frame: the task goes on, so in A2A v1.0 it is a WORKING status (docs/streaming.md).
        else if (inputTimeout) this.status(row, this.ids.nextInputWait(row.id), row.state, 'input-timeout', row.statusTimestampMs, row.change);
        // The stored start of work is reported by the "inference turn 1" status that follows it.
        return;
      case 'TASK_STATE_INPUT_REQUIRED':
        this.status(row, this.ids.inputWaitStarts(row.id), row.state, row.prompt ?? '', row.statusTimestampMs, row.change);
        return;
      case 'TASK_STATE_REJECTED':
        // Written only to the stream that submitted it, never buffered (seed 001).
        return;
      case 'TASK_STATE_COMPLETED':
      case 'TASK_STATE_FAILED':
      case 'TASK_STATE_CANCELED': {
        const next = () => (canceledQueued ? this.ids.nextQueuedCancel() : this.ids.nextTask(row.id));
        for (const artifact of artifactsOf(row)) this.artifact(row, next(), artifact);
        this.status(row, next(), row.state, null, row.statusTimestampMs, row.change);
        if (TERMINAL_STATES.has(row.state)) {
          this.ids.forget(row.id);
          this.buffer.forgetTask(row.id);
        }
        return;
      }
      case 'TASK_STATE_AUTH_REQUIRED':
        return;
      default: {
        const unreachable: never = row.state;
        throw new Error(`unknown task state ${String(unreachable)}`);
      }
    }
  }
}
