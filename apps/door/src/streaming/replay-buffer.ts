import type { StreamEvent } from './stream-event.js';

export const REPLAY_CAPACITY = 512;

export type ReplayResult = { gapFirstAvailableId: bigint | null; events: StreamEvent[] };

/**
 * What the buffer evicted of one task that has not ended: the task-stream gap is judged on it (docs/decisions.md,
 * "A task stream's gap"). Records are dropped when the task ends, and never more than this many are kept.
 */
export const EVICTION_RECORDS = 4096;
interface TaskEviction {
  lastId: bigint;
}

/** The session's most recent 512 events with ids, in the order written (seed 001, "Replay"). */
export class ReplayBuffer {
  private readonly ring: StreamEvent[] = [];
  private start = 0;
  private readonly evicted = new Map<string, TaskEviction>();
  private readonly tracked = new Set<string>();

  constructor(private readonly capacity = REPLAY_CAPACITY) {}

  push(event: StreamEvent): void {
    if (event.taskId !== null) this.track(event.taskId);
    if (this.ring.length < this.capacity) this.ring.push(event);
    else {
      this.noteEviction(this.ring[this.start]);
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

  /**
   * A task stream's replay from id N, judged on the followed task's events only: what another task wrote (and the
   * ids it pushed up) neither causes a gap nor re-sends anything.
   * - The task's first buffered event with id N is the resume point: every later event of the task, no gap
   *   (eviction is oldest-first, so nothing after it can be gone).
   * - Otherwise, when the buffer evicted some of the task's events and the last of them is not N: a gap naming
   *   the task's oldest buffered id, then all its buffered events.
   * - Otherwise nothing of the task was lost after N: its buffered events whose id is above N (seed 001's
   *   comparison), or all of them when N was the last one evicted.
   */
  replayTask(taskId: string, from: bigint): ReplayResult {
    const all = this.events();
    const own = all.filter((e) => e.taskId === taskId);
    const at = own.findIndex((e) => e.id === from);
    if (at >= 0) return { gapFirstAvailableId: null, events: own.slice(at + 1) };
    const eviction = this.evicted.get(taskId);
    if (eviction === undefined) return { gapFirstAvailableId: null, events: own.filter((e) => e.id! > from) };
    if (eviction.lastId === from) return { gapFirstAvailableId: null, events: own };
    return { gapFirstAvailableId: own[0]?.id ?? all[0]?.id ?? from, events: own };
  }

  /** The task ended: its eviction record goes (no task stream resumes an ended task). */
  forgetTask(taskId: string): void {
    this.tracked.delete(taskId);
    this.evicted.delete(taskId);
  }

  private track(taskId: string): void {
    if (this.tracked.has(taskId)) return;
    this.tracked.add(taskId);
    if (this.tracked.size > EVICTION_RECORDS) {
      const oldest = this.tracked.values().next().value as string;
      this.forgetTask(oldest);
    }
  }

  private noteEviction(event: StreamEvent): void {
    if (event.taskId !== null && this.tracked.has(event.taskId)) this.evicted.set(event.taskId, { lastId: event.id! });
  }
}
