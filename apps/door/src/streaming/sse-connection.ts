import type { ServerResponse } from 'node:http';
import { HEARTBEAT_COMMENT, type JsonRpcId, successHead } from '@murmur/protocol';
import type { StalledReader, StalledReaders } from './stalled-readers.js';
import type { StreamEvent } from './stream-event.js';

/** Live events a connection may fall behind by before the oldest are dropped (seed 001, "Frames a connection misses"). */
export const CONNECTION_QUEUE_LIMIT = 128;

/**
 * Bytes of live events a connection may hold unwritten beside the 128-event count; past either, the oldest are
 * dropped and `lagged` says how many. The newest event is kept however large, unless the reader has stalled.
 * @default 1 MiB
 * @unit bytes (UTF-16 estimate of the encoded events)
 */
export const CONNECTION_QUEUE_BYTES = 1024 * 1024;

/**
 * The most a connection hands its socket in one write. Events are written in slices of this size, the next only
 * once the socket has taken the last: a reader that stalls leaves at most one slice in the socket's buffer, not the
 * whole event it was reading (an event may be as large as a request body).
 * @default 32 Ki characters (≤ 96 KiB of UTF-8)
 * @unit UTF-16 code units
 */
export const WRITE_SLICE_CHARS = 32 * 1024;

export interface ConnectionOptions {
  heartbeatMs: number;
  /** Renders the lagged frame that tells the reader how many events it lost. */
  lagged: (dropped: number) => StreamEvent | null;
  queueLimit?: number;
  queueBytes?: number;
  sliceChars?: number;
  /** The door's stalled readers: a connection stalled in the middle of a large event is counted there. */
  stalled?: StalledReaders;
}

/**
 * One event as a connection writes it: `encodeSseEvent(id, <rpc prefix><result>})` in three pieces, so that the
 * result — rendered once by the hub and shared by every connection and the replay buffer — is sliced, never copied.
 */
interface Outgoing {
  head: string;
  body: string;
  bytes: number;
}

/**
 * One open SSE response. Live events wait in a bounded queue while the socket is backed up; when it overflows, the
 * oldest are dropped and a `lagged` frame says how many before the next event. Writes are batched per tick, in
 * slices of at most WRITE_SLICE_CHARS, each handed to the socket only once it has taken the one before.
 */
export class SseConnection {
  /** The opening events and a replay: bounded by the replay buffer, never dropped. */
  private readonly preface: Outgoing[] = [];
  private readonly queue: Outgoing[] = [];
  private queuedBytes = 0;
  private dropped = 0;
  /** The rest of the event being written: its pieces, from `offset` in the first. */
  private readonly pieces: string[] = [];
  private offset = 0;
  /** While stalled in the middle of a large event: this connection's entry among the stalled readers. */
  private stall: StalledReader | null = null;
  private blocked = false;
  private flushScheduled = false;
  private ending = false;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly idPrefix: string;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    rpcId: JsonRpcId,
    private readonly options: ConnectionOptions,
  ) {
    this.idPrefix = successHead(rpcId);
    // Not reset by events: a heartbeat comes due every interval from the connection's opening. Never inside an event.
    this.heartbeat = setInterval(() => {
      if (!this.blocked && !this.closed && this.pieces.length === 0) this.res.write(HEARTBEAT_COMMENT);
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

  /** Characters of the event being written that the socket has not taken yet. */
  get unwrittenChars(): number {
    return this.pieces.reduce((sum, piece) => sum + piece.length, 0) - this.offset;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** Same text as encodeSseEvent(event.id, `${idPrefix}${event.result}}`), kept in pieces (docs/streaming.md). */
  private outgoing(event: StreamEvent): Outgoing {
    const head = event.id === null ? `data: ${this.idPrefix}` : `id: ${event.id}\ndata: ${this.idPrefix}`;
    return { head, body: event.result, bytes: (head.length + event.result.length + 3) * 2 };
  }

  /** Writes ahead of any live event, outside the queue: the opening events and a replay, which are bounded by the buffer. */
  writeNow(events: StreamEvent[]): void {
    if (this.closed || events.length === 0) return;
    for (const event of events) this.preface.push(this.outgoing(event));
    this.flush();
  }

  /** Queues a live event. */
  send(event: StreamEvent): void {
    if (this.closed || this.ending) return;
    const outgoing = this.outgoing(event);
    this.queue.push(outgoing);
    this.queuedBytes += outgoing.bytes;
    // The queue holds what the socket has not taken yet. Past the limit the oldest go, whether the socket is backed
    // up or a producer wrote more in one tick than the limit (drivers yield between chunks, so a reader that keeps
    // up never sees that): the memory a connection holds stays bounded by the queue.
    const limit = this.options.queueLimit ?? CONNECTION_QUEUE_LIMIT;
    const bytes = this.options.queueBytes ?? CONNECTION_QUEUE_BYTES;
    // The newest event stays even alone over the bytes while the socket takes writes; behind a stalled reader it
    // goes too, so what a stalled connection holds stays within its budget whatever one event weighs.
    while (this.queue.length > (this.blocked ? 0 : 1) && (this.queue.length > limit || this.queuedBytes > bytes)) {
      this.queuedBytes -= this.queue.shift()!.bytes;
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

  private scheduleFlush(): void {
    if (this.flushScheduled || this.blocked) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (!this.closed && !this.blocked) {
      const slice = this.nextSlice();
      if (slice === '') break;
      if (!this.res.write(slice)) {
        this.blocked = true;
        this.stallIfPinning();
      }
    }
    if (this.ending && !this.closed && !this.blocked && this.pieces.length === 0 && this.queue.length === 0 && this.preface.length === 0) {
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
      if (lagged) next = this.outgoing(lagged);
    }
    if (!next) {
      next = this.queue.shift();
      if (next) this.queuedBytes -= next.bytes;
    }
    if (!next) return false;
    this.pieces.push(next.head, next.body, '}\n\n');
    this.offset = 0;
    return true;
  }

  /** Up to one slice of what is waiting: several small events in one write, a large one over several. */
  private nextSlice(): string {
    const size = this.options.sliceChars ?? WRITE_SLICE_CHARS;
    let out = '';
    while (out.length < size) {
      if (this.pieces.length === 0 && !this.pull()) break;
      const piece = this.pieces[0];
      const room = size - out.length;
      if (piece.length - this.offset <= room) {
        out += this.offset === 0 ? piece : piece.slice(this.offset);
        this.pieces.shift();
        this.offset = 0;
        continue;
      }
      let end = this.offset + room;
      // Never between the two halves of a surrogate pair: each write is encoded to UTF-8 on its own.
      if (isHighSurrogate(piece.charCodeAt(end - 1))) end -= 1;
      if (end === this.offset) end += 2;
      out += piece.slice(this.offset, end);
      this.offset = end;
      break;
    }
    return out;
  }

  /** Blocked in the middle of an event larger than a slice: the event's text is pinned by this reader. */
  private stallIfPinning(): void {
    const body = this.pieces.length === 3 ? this.pieces[1] : this.pieces.length === 2 ? this.pieces[0] : null;
    if (!this.options.stalled || body === null || body.length <= (this.options.sliceChars ?? WRITE_SLICE_CHARS)) return;
    this.stall = { pinned: body, disconnect: () => this.res.destroy() };
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
    this.pieces.length = 0;
    this.queuedBytes = 0;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
