/**
 * From a `data:` line to a typed event (docs/streaming.md, "Events"), and the de-duplication a reconnecting client
 * does (seed 001, "Replay": "De-duplicates on … the task id in data, the event type and the id together — not on
 * the id alone").
 */
import {
  isPlainObject,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type MurmurFrame,
  murmurFrameOf,
  PROCESS_STREAM_FRAMES,
  type StreamResponse,
  streamEventKind,
} from '@murmur/protocol';
import { A2AError, StreamError } from '../errors.js';
import type { StreamDataEvent } from '../events.js';

// Every frame a door can send: a harness capsule's list is the longest (it adds quota and suggested-prompt).
const KNOWN_FRAMES: ReadonlySet<string> = new Set(PROCESS_STREAM_FRAMES);

export interface ReadEvent {
  event: StreamDataEvent;
  /** The `result` as JSON text: what de-duplication compares. */
  resultJson: string;
}

/**
 * Reads one event's data: a JSON-RPC response whose id is the request's (same JSON type) and whose result is a
 * StreamResponse. Returns null for an event to ignore (a result with no member this client knows, or a murmur frame
 * it does not know: seed 001, "Unknown frames and keys"). A JSON-RPC error is thrown as its A2AError; anything
 * else unreadable as a StreamError('invalid-event').
 */
export function readStreamEvent(data: string, id: string | null, requestId: JsonRpcId, method: string, lastEventId: string | null): ReadEvent | null {
  const invalid = (why: string, cause?: unknown) =>
    new StreamError('invalid-event', `${method}: ${why}: ${data.slice(0, 200)}`, { method, lastEventId, cause });
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch (error) {
    throw invalid('an event whose data is not JSON', error);
  }
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') throw invalid('an event that is not a JSON-RPC 2.0 response');
  if (body.id !== requestId) throw invalid(`an event for request id ${JSON.stringify(body.id)}, not ${JSON.stringify(requestId)}`);
  if ('error' in body) {
    const error = body.error;
    if (!isPlainObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') throw invalid('an event with a malformed error');
    throw A2AError.from(error as unknown as JsonRpcErrorObject, { method, requestId });
  }
  if (!isPlainObject(body.result)) throw invalid('an event without a result object');
  const response = body.result as StreamResponse;
  const event = classify(response, id);
  return event === null ? null : { event, resultJson: JSON.stringify(body.result) };
}

function classify(response: StreamResponse, id: string | null): StreamDataEvent | null {
  if ('task' in response && isPlainObject(response.task)) {
    return { kind: 'task', id, taskId: response.task.id, response, frame: null, resumed: false };
  }
  if ('statusUpdate' in response && isPlainObject(response.statusUpdate)) {
    const frame = murmurFrameOf(response);
    const taskId = response.statusUpdate.taskId;
    if (frame === null) return { kind: 'status', id, taskId, response, frame: null };
    return knownFrame(frame) ? { kind: 'frame', id, taskId, response, frame } : null;
  }
  if ('artifactUpdate' in response && isPlainObject(response.artifactUpdate)) {
    return { kind: 'artifact', id, taskId: response.artifactUpdate.taskId, response, frame: null };
  }
  if ('message' in response && isPlainObject(response.message)) {
    const frame = murmurFrameOf(response);
    const taskId = response.message.taskId ?? null;
    if (frame === null) return { kind: 'message', id, taskId, response, frame: null };
    return knownFrame(frame) ? { kind: 'frame', id, taskId, response, frame } : null;
  }
  return null;
}

function knownFrame(frame: MurmurFrame): boolean {
  return KNOWN_FRAMES.has(frame.frame);
}

/**
 * The kind the door's events are told apart by, beside the task id and the event id (docs/streaming.md, "Event
 * ids"): `status`, `artifact-update`, or the murmur frame's name.
 */
export function dedupeKind(event: StreamDataEvent): string {
  return streamEventKind(event.response);
}

/** (task id, kind, id) as one string, or null for an event without an id (never replayed, so never a repeat). */
export function dedupeKey(event: StreamDataEvent): string | null {
  if (event.id === null) return null;
  return `${event.taskId ?? ''}\u0000${dedupeKind(event)}\u0000${event.id}`;
}

/** How many recent events de-duplication remembers; the door replays at most 512 (its replay buffer). */
export const DEDUPE_WINDOW = 2048;

/**
 * Remembers the last `limit` events delivered and says whether a new one repeats an earlier one.
 *
 * The key is (task id, kind, id). Because ids are labels, the same key legitimately comes back — two input waits
 * of one task both count from 9223372036854775807, a reopened task counts from 0 again — so a repeat is dropped
 * only when it is what a replay produces: the same event (identical result JSON: the door replays the event it
 * buffered, byte for byte) first delivered on an earlier connection. On one connection the door never repeats
 * an event, so nothing is ever dropped before the first reconnect.
 */
export class Deduper {
  private readonly seen = new Map<string, number>();

  constructor(private readonly limit: number = DEDUPE_WINDOW) {}

  get size(): number {
    return this.seen.size;
  }

  /** Whether to drop `event`, received on connection number `connection` (1-based); remembers it when not. */
  isRepeat(key: string, resultJson: string, connection: number): boolean {
    const entry = `${key}\u0000${fingerprint(resultJson)}`;
    const first = this.seen.get(entry);
    if (first !== undefined) return first < connection;
    this.seen.set(entry, connection);
    if (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value as string);
    return false;
  }
}

/** A 53-bit string hash (cyrb53, public domain): keeps 2048 remembered events small whatever their size. */
function fingerprint(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
