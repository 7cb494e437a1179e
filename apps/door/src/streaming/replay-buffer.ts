import type { StreamEvent } from './stream-event.js';

export const REPLAY_CAPACITY = 512;

/**
 * Bytes of events the replay buffer holds beside its 512-event count: past either, the oldest go, and a replay
 * from before them answers a gap (seed 001, "Replay"). The newest event always stays, even alone over the budget.
 * @default 4 MiB
 * @unit bytes (UTF-16 estimate of the rendered event)
 */
export const REPLAY_BYTES = 4 * 1024 * 1024;

export type ReplayResult = { gapFirstAvailableId: bigint | null; events: StreamEvent[] };

/** Heap an event's rendered result takes, by the same estimate as the connection queue's. */
export const eventBytes = (event: StreamEvent): number => 64 + event.result.length * 2;

/** The session's most recent events with ids (at most 512, at most 4 MiB), in the order written (seed 001, "Replay"). */
export class ReplayBuffer {
  /** Evicted slots are emptied at once (an evicted event may be large); the array is compacted now and then. */
  private events_: (StreamEvent | null)[] = [];
  /** Index of the oldest held event in `events_`. */
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly capacity = REPLAY_CAPACITY,
    private readonly budgetBytes = REPLAY_BYTES,
  ) {}

  get heldBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.events_.length - this.head;
  }

  push(event: StreamEvent): void {
    this.events_.push(event);
    this.bytes += eventBytes(event);
    while (this.size > 1 && (this.size > this.capacity || this.bytes > this.budgetBytes)) {
      this.bytes -= eventBytes(this.events_[this.head]!);
      this.events_[this.head] = null;
      this.head += 1;
    }
    if (this.head > this.capacity) {
      this.events_ = this.events_.slice(this.head);
      this.head = 0;
    }
  }

  /** Buffer order, oldest first. */
  events(): StreamEvent[] {
    return this.events_.slice(this.head) as StreamEvent[];
  }

  /**
   * A replay from id N: nothing from an empty buffer; a gap naming the oldest id, then every event, when the oldest
   * id is greater than N + 1; otherwise every event whose id is greater than N. No N: the whole buffer.
   */
  replay(from: bigint | null): ReplayResult {
    const all = this.events();
    if (all.length === 0 || from === null) return { gapFirstAvailableId: null, events: all };
    const oldest = all[0].id!;
    if (oldest > from + 1n) return { gapFirstAvailableId: oldest, events: all };
    return { gapFirstAvailableId: null, events: all.filter((e) => e.id! > from) };
  }
}
