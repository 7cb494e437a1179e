import type { ServerResponse } from 'node:http';
import { encodeSseEvent, HEARTBEAT_COMMENT, type JsonRpcId } from '@murmur/protocol';
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

export interface ConnectionOptions {
  heartbeatMs: number;
  /** Renders the lagged frame that tells the reader how many events it lost. */
  lagged: (dropped: number) => StreamEvent | null;
  queueLimit?: number;
  queueBytes?: number;
}

/**
 * One open SSE response. Live events wait in a bounded queue while the socket is backed up; when it overflows, the
 * oldest are dropped and a `lagged` frame says how many before the next event. Writes are batched per tick.
 */
export class SseConnection {
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  private dropped = 0;
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
    this.idPrefix = `{"jsonrpc":"2.0","id":${JSON.stringify(rpcId)},"result":`;
    // Not reset by events: a heartbeat comes due every interval from the connection's opening.
    this.heartbeat = setInterval(() => {
      if (!this.blocked && !this.closed) this.res.write(HEARTBEAT_COMMENT);
    }, options.heartbeatMs);
    this.heartbeat.unref();
    res.on('close', () => this.onClosed());
    res.on('drain', () => {
      this.blocked = false;
      this.flush();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private encode(event: StreamEvent): string {
    return encodeSseEvent(event.id, `${this.idPrefix}${event.result}}`);
  }

  /** Writes at once, outside the queue: the opening events and a replay, which are bounded by the buffer. */
  writeNow(events: StreamEvent[]): void {
    if (this.closed || events.length === 0) return;
    if (!this.res.write(events.map((e) => this.encode(e)).join(''))) this.blocked = true;
  }

  /** Queues a live event. */
  send(event: StreamEvent): void {
    if (this.closed || this.ending) return;
    const encoded = this.encode(event);
    this.queue.push(encoded);
    this.queuedBytes += encoded.length * 2;
    // The queue holds what the socket has not taken yet. Past the limit the oldest go, whether the socket is backed
    // up or a producer wrote more in one tick than the limit (drivers yield between chunks, so a reader that keeps
    // up never sees that): the memory a connection holds stays bounded by the queue.
    const limit = this.options.queueLimit ?? CONNECTION_QUEUE_LIMIT;
    const bytes = this.options.queueBytes ?? CONNECTION_QUEUE_BYTES;
    // The newest event stays even alone over the bytes while the socket takes writes; behind a stalled reader it
    // goes too, so what a stalled connection holds stays within its budget whatever one event weighs.
    while (this.queue.length > (this.blocked ? 0 : 1) && (this.queue.length > limit || this.queuedBytes > bytes)) {
      this.queuedBytes -= this.queue.shift()!.length * 2;
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
    if (this.closed || this.blocked) return;
    if (this.queue.length > 0 || this.dropped > 0) {
      let chunk = '';
      if (this.dropped > 0) {
        const lagged = this.options.lagged(this.dropped);
        if (lagged) chunk += this.encode(lagged);
        this.dropped = 0;
      }
      chunk += this.queue.join('');
      this.queue.length = 0;
      this.queuedBytes = 0;
      if (!this.res.write(chunk)) this.blocked = true;
    }
    if (this.ending && this.queue.length === 0 && !this.blocked) {
      this.res.end();
      this.onClosed();
    }
  }

  private onClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.queue.length = 0;
    this.queuedBytes = 0;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
