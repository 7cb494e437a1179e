import type { StreamEvent } from './stream-event.js';

export const REPLAY_CAPACITY = 512;

export type ReplayResult = { gapFirstAvailableId: bigint | null; events: StreamEvent[] };

/** The session's most recent 512 events with ids, in the order written (seed 001, "Replay"). */
export class ReplayBuffer {
  private readonly ring: StreamEvent[] = [];
  private start = 0;

  constructor(private readonly capacity = REPLAY_CAPACITY) {}

  push(event: StreamEvent): void {
    if (this.ring.length < this.capacity) this.ring.push(event);
    else {
      this.ring[this.start] = event;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** Buffer order, oldest first. */
  events(): StreamEvent[] {
    return [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)];
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
