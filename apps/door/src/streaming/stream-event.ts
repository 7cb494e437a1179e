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
  /** Its SSE text as UTF-8, made by the first connection that writes it and shared by the rest (encodedEvent). */
  encoded?: EncodedEvent;
}

/**
 * An event's SSE text, `encodeSseEvent(id, <rpc head><result>})`, in UTF-8 without the reader's JSON-RPC head
 * (`{"jsonrpc":"2.0","id":<its request id>,"result":`), which goes between `line` and `body`: every connection copies
 * the same bytes around its own head, so a fan-out encodes an event once, not once per reader.
 */
export interface EncodedEvent {
  /** `id: N\ndata: `, or `data: ` for an event without an id. */
  readonly line: Buffer;
  /** The result and `}\n\n`. */
  readonly body: Buffer;
}

export function encodedEvent(event: StreamEvent): EncodedEvent {
  if (event.encoded !== undefined) return event.encoded;
  event.encoded = { line: Buffer.from(event.id === null ? 'data: ' : `id: ${event.id}\ndata: `), body: Buffer.from(`${event.result}}\n\n`) };
  return event.encoded;
}
