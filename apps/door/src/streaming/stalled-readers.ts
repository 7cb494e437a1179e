/**
 * Bytes of distinct events that stalled readers keep alive by being in the middle of them. An event's encoding is
 * shared by every connection (sse-connection.ts), so readers stalled on one event pin it once; readers stalled on
 * different large events would pin each. Past this budget the reader stalled longest is disconnected: it reconnects
 * with Last-Event-ID and is told what it missed (`gap`), as any dropped connection is (docs/reliability.md).
 * @default 64 MiB
 * @unit bytes (twice each pinned event's UTF-8 length: the UTF-16 estimate it was set in, exact for ASCII, larger otherwise)
 */
const STALLED_EVENTS_BYTES = 64 * 1024 * 1024;

/** A connection stalled in the middle of an event: what it pins, and how it is let go. */
export interface StalledReader {
  /** The encoded event it is in the middle of (shared, not a copy). */
  readonly pinned: Buffer;
  disconnect(): void;
}

/** The door's stalled readers, oldest stall first, and the distinct events they pin. */
export class StalledReaders {
  private readonly readers = new Set<StalledReader>();
  private readonly pins = new Map<Buffer, number>();
  private pinnedBytes = 0;

  constructor(private readonly budgetBytes = STALLED_EVENTS_BYTES) {}

  get bytes(): number {
    return this.pinnedBytes;
  }

  /** A reader stalled in the middle of an event; the longest-stalled ones go while the pinned events weigh too much. */
  stalled(reader: StalledReader): void {
    if (this.readers.has(reader)) return;
    this.readers.add(reader);
    const count = this.pins.get(reader.pinned) ?? 0;
    if (count === 0) this.pinnedBytes += reader.pinned.length * 2;
    this.pins.set(reader.pinned, count + 1);
    for (const oldest of this.readers) {
      if (this.pinnedBytes <= this.budgetBytes || oldest === reader) break;
      this.released(oldest);
      oldest.disconnect();
    }
  }

  /** The reader took its event, or its connection closed. */
  released(reader: StalledReader): void {
    if (!this.readers.delete(reader)) return;
    const count = this.pins.get(reader.pinned)! - 1;
    if (count === 0) {
      this.pins.delete(reader.pinned);
      this.pinnedBytes -= reader.pinned.length * 2;
    } else this.pins.set(reader.pinned, count);
  }
}
