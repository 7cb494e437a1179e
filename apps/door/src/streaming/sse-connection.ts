import type { ServerResponse } from 'node:http';
import { HEARTBEAT_COMMENT, type JsonRpcId, successHead } from '@murmur/protocol';
import type { StalledReader, StalledReaders } from './stalled-readers.js';
import { type EncodedEvent, encodedEvent, type StreamEvent, wireBytes } from './stream-event.js';

/** Live events a connection may fall behind by before the oldest are dropped (seed 001, "Frames a connection misses"). */
const CONNECTION_QUEUE_LIMIT = 128;

/**
 * Bytes of live events a connection may hold unwritten beside the 128-event count; past either, the oldest are
 * dropped and `lagged` says how many. The newest event is kept however large, unless the reader has stalled.
 * @default 1 MiB
 * @unit bytes (twice each event's UTF-8 length: the UTF-16 estimate it was set in, exact for ASCII, larger otherwise)
 */
const CONNECTION_QUEUE_BYTES = 1024 * 1024;

/**
 * The most a connection hands its socket in one write. Events are written in slices of this size, the next only
 * once the socket has taken the last: a reader that stalls leaves at most one slice in the socket's buffer, not the
 * whole event it was reading (an event may be as large as a request body). A slice never ends inside a UTF-8
 * character, so each write is valid UTF-8 on its own.
 * @default 32 KiB
 * @unit bytes (UTF-8)
 */
export const WRITE_SLICE_BYTES = 32 * 1024;

export interface ConnectionOptions {
  heartbeatMs: number;
  /** Renders the lagged frame that tells the reader how many events it lost. */
  lagged: (dropped: number) => StreamEvent | null;
  queueLimit?: number;
  queueBytes?: number;
  sliceBytes?: number;
  /** The door's stalled readers: a connection stalled in the middle of a large event is counted there. */
  stalled?: StalledReaders;
}

/** Connections with events to write this tick: one setImmediate flushes them all, in the order they asked. */
const due: SseConnection[] = [];

function flushDue(): void {
  for (const connection of due.splice(0)) connection.flushNow();
}

/**
 * One open SSE response. Live events wait in a bounded queue while the socket is backed up; when it overflows, the
 * oldest are dropped and a `lagged` frame says how many before the next event. Writes are batched per tick, in
 * slices of at most WRITE_SLICE_BYTES, each handed to the socket only once it has taken the one before.
 *
 * An event is encoded to UTF-8 once (`encodedEvent`, shared by every connection and the replay buffer); a slice is
 * one Buffer into which the connection copies the events' bytes around its own JSON-RPC head, so the wire is what
 * `encodeSseEvent(id, <head><result>})` written slice by slice gives, with no text work per reader.
 */
export class SseConnection {
  /** The opening events and a replay: bounded by the replay buffer, never dropped. */
  private readonly preface: StreamEvent[] = [];
  private readonly queue: StreamEvent[] = [];
  private queuedBytes = 0;
  private dropped = 0;
  /** The event being written, and how many of its bytes (head included) the socket has taken. */
  private current: EncodedEvent | null = null;
  private offset = 0;
  /** While stalled in the middle of a large event: this connection's entry among the stalled readers. */
  private stall: StalledReader | null = null;
  private blocked = false;
  private flushScheduled = false;
  private ending = false;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;
  /** `{"jsonrpc":"2.0","id":<the request's id>,"result":` as UTF-8: the one part of an event that is this reader's. */
  private readonly head: Buffer;
  private readonly closeListeners: (() => void)[] = [];
  /** The current slice's pieces (a buffer and a range of it), reused from slice to slice. */
  private readonly from: Buffer[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  constructor(
    private readonly res: ServerResponse,
    rpcId: JsonRpcId,
    private readonly options: ConnectionOptions,
  ) {
    this.head = Buffer.from(successHead(rpcId));
    // Not reset by events: a heartbeat comes due every interval from the connection's opening. Never inside an event.
    this.heartbeat = setInterval(() => {
      if (!this.blocked && !this.closed && this.current === null) this.res.write(HEARTBEAT_COMMENT);
    }, options.heartbeatMs);
    this.heartbeat.unref();
    res.on('close', () => this.onClosed());
    res.on('drain', () => {
      this.blocked = false;
      this.unstall();
      this.flush();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes of the event being written that the socket has not taken yet. */
  get unwrittenBytes(): number {
    return this.current === null ? 0 : this.lengthOf(this.current) - this.offset;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** Writes ahead of any live event, outside the queue: the opening events and a replay, which are bounded by the buffer. */
  writeNow(events: StreamEvent[]): void {
    if (this.closed || events.length === 0) return;
    for (const event of events) this.preface.push(event);
    this.flush();
  }

  /** Queues a live event. */
  send(event: StreamEvent): void {
    if (this.closed || this.ending) return;
    this.queue.push(event);
    this.queuedBytes += this.queuedBytesOf(event);
    // The queue holds what the socket has not taken yet. Past the limit the oldest go, whether the socket is backed
    // up or a producer wrote more in one tick than the limit (drivers yield between chunks, so a reader that keeps
    // up never sees that): the memory a connection holds stays bounded by the queue.
    const limit = this.options.queueLimit ?? CONNECTION_QUEUE_LIMIT;
    const bytes = this.options.queueBytes ?? CONNECTION_QUEUE_BYTES;
    // The newest event stays even alone over the bytes while the socket takes writes; behind a stalled reader it
    // goes too, so what a stalled connection holds stays within its budget whatever one event weighs.
    while (this.queue.length > (this.blocked ? 0 : 1) && (this.queue.length > limit || this.queuedBytes > bytes)) {
      this.queuedBytes -= this.queuedBytesOf(this.queue.shift()!);
      this.dropped += 1;
    }
    this.scheduleFlush();
  }

  /** Ends the response once every queued event is written. */
  end(): void {
    if (this.closed || this.ending) return;
    this.ending = true;
    this.scheduleFlush();
  }

  /** The scheduled flush of this tick (flushDue). */
  flushNow(): void {
    this.flushScheduled = false;
    this.flush();
  }

  /**
   * Twice the UTF-8 bytes: the UTF-16 estimate the queue's budget was set in, exact for ASCII, more for the rest.
   * Counted without encoding the event: an event this connection drops is never encoded for it.
   */
  private queuedBytesOf(event: StreamEvent): number {
    return (wireBytes(event) + this.head.length) * 2;
  }

  private lengthOf(event: EncodedEvent): number {
    return event.line.length + this.head.length + event.body.length;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.blocked) return;
    this.flushScheduled = true;
    if (due.push(this) === 1) setImmediate(flushDue);
  }

  private flush(): void {
    while (!this.closed && !this.blocked) {
      const slice = this.nextSlice();
      if (slice === null) break;
      if (!this.res.write(slice)) {
        this.blocked = true;
        this.stallIfPinning();
      }
    }
    if (this.ending && !this.closed && !this.blocked && this.current === null && this.queue.length === 0 && this.preface.length === 0) {
      this.res.end();
      this.onClosed();
    }
  }

  /** The next event to write: the preface first, then `lagged` when events were dropped, then the queue. */
  private pull(): boolean {
    let next = this.preface.shift();
    if (!next && this.dropped > 0) {
      const lagged = this.options.lagged(this.dropped);
      this.dropped = 0;
      if (lagged) next = lagged;
    }
    if (!next) {
      next = this.queue.shift();
      if (next) this.queuedBytes -= this.queuedBytesOf(next);
    }
    if (!next) return false;
    this.current = encodedEvent(next);
    this.offset = 0;
    return true;
  }

  /** Up to one slice of what is waiting, in one Buffer: several small events in one write, a large one over several. */
  private nextSlice(): Buffer | null {
    const size = this.options.sliceBytes ?? WRITE_SLICE_BYTES;
    const { from, starts, ends } = this;
    from.length = 0;
    starts.length = 0;
    ends.length = 0;
    let total = 0;
    while (total < size) {
      if (this.current === null && !this.pull()) break;
      const event = this.current!;
      const length = this.lengthOf(event);
      const room = size - total;
      if (length - this.offset <= room) {
        this.take(event, this.offset, length);
        total += length - this.offset;
        this.current = null;
        this.offset = 0;
        continue;
      }
      let end = this.offset + room;
      // Never inside a UTF-8 character: back to its first byte, or past it when the slice holds nothing else.
      while (end > this.offset && isContinuation(this.byteAt(event, end))) end -= 1;
      if (end === this.offset) {
        end = this.offset + room;
        while (end < length && isContinuation(this.byteAt(event, end))) end += 1;
      }
      this.take(event, this.offset, end);
      total += end - this.offset;
      this.offset = end;
      break;
    }
    if (total === 0) return null;
    const slice = Buffer.allocUnsafe(total);
    let at = 0;
    for (let i = 0; i < from.length; i++) {
      const piece = from[i];
      const start = starts[i];
      const end = ends[i];
      // A whole buffer is copied with set() as it is: Buffer.copy and subarray make a view a call.
      slice.set(start === 0 && end === piece.length ? piece : piece.subarray(start, end), at);
      at += end - start;
    }
    return slice;
  }

  /** Byte `at` of an event as this reader's wire has it: its id line, this reader's head, then the rest. */
  private byteAt(event: EncodedEvent, at: number): number {
    const { line, body } = event;
    if (at < line.length) return line[at];
    const inHead = at - line.length;
    return inHead < this.head.length ? this.head[inHead] : body[inHead - this.head.length];
  }

  /** Adds bytes [start, end) of an event, as this reader's wire has it, to the slice's pieces. */
  private take(event: EncodedEvent, start: number, end: number): void {
    const headAt = event.line.length;
    this.piece(event.line, start, end, 0);
    this.piece(this.head, start, end, headAt);
    this.piece(event.body, start, end, headAt + this.head.length);
  }

  /** The part of [start, end) that falls in `part`, which the event's wire holds from `at`. */
  private piece(part: Buffer, start: number, end: number, at: number): void {
    const from = Math.max(start - at, 0);
    const to = Math.min(end - at, part.length);
    if (from >= to) return;
    this.from.push(part);
    this.starts.push(from);
    this.ends.push(to);
  }

  /** Blocked in the middle of an event larger than a slice: the event's bytes are pinned by this reader. */
  private stallIfPinning(): void {
    const event = this.current;
    if (!this.options.stalled || event === null || event.body.length <= (this.options.sliceBytes ?? WRITE_SLICE_BYTES)) return;
    this.stall = { pinned: event.body, disconnect: () => this.res.destroy() };
    this.options.stalled.stalled(this.stall);
  }

  private unstall(): void {
    if (this.stall) this.options.stalled?.released(this.stall);
    this.stall = null;
  }

  private onClosed(): void {
    if (this.closed) return;
    this.unstall();
    this.closed = true;
    clearInterval(this.heartbeat);
    this.queue.length = 0;
    this.preface.length = 0;
    this.current = null;
    this.from.length = 0;
    this.queuedBytes = 0;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

/** A UTF-8 continuation byte (its top two bits are 1 then 0): never the first byte of a character. */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}
