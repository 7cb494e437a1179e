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
  /** Its SSE text's UTF-8 length without a reader's head, counted once without encoding it (wireBytes). */
  wireBytes?: number;
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

const DATA_PREFIX = 'data: ';
const ID_PREFIX = 'id: ';
const ID_SUFFIX = '\ndata: ';
/** What follows an event's result: the JSON-RPC response's closing brace and the blank line that ends the event. */
const BODY_END = '}\n\n';

/**
 * The UTF-8 length of an event's `line` and `body`, without encoding them: what a connection's queue counts an event
 * at. A reader that stalls drops most of what is queued for it, and no event it never writes is encoded for it.
 */
export function wireBytes(event: StreamEvent): number {
  if (event.wireBytes !== undefined) return event.wireBytes;
  const { encoded } = event;
  const line = event.id === null ? DATA_PREFIX.length : ID_PREFIX.length + String(event.id).length + ID_SUFFIX.length;
  event.wireBytes = encoded === undefined ? line + Buffer.byteLength(event.result) + BODY_END.length : encoded.line.length + encoded.body.length;
  return event.wireBytes;
}

export function encodedEvent(event: StreamEvent): EncodedEvent {
  if (event.encoded !== undefined) return event.encoded;
  event.encoded = {
    line: Buffer.from(event.id === null ? DATA_PREFIX : `${ID_PREFIX}${event.id}${ID_SUFFIX}`),
    body: Buffer.from(`${event.result}${BODY_END}`),
  };
  return event.encoded;
}
