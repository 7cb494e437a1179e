import type { StreamEvent } from './stream-event.js';

const REPLAY_CAPACITY = 512;

/**
 * Bytes of events the replay buffer holds beside its 512-event count: past either, the oldest go, and a replay
 * from before them answers a gap (seed 001, "Replay"). The newest event always stays, even alone over the budget.
 * @default 4 MiB
 * @unit bytes (UTF-16 estimate of the rendered event)
 */
export const REPLAY_BYTES = 4 * 1024 * 1024;

export type ReplayResult = { gapFirstAvailableId: bigint | null; events: StreamEvent[] };

/**
 * What the buffer evicted of one task that has not ended: the task-stream gap is judged on it (docs/decisions.md,
 * "A task stream's gap"). Records are dropped when the task ends, and never more than this many are kept.
 */
const EVICTION_RECORDS = 4096;
interface TaskEviction {
  lastId: bigint;
}

/** Heap an event's rendered result takes, by the same estimate as the connection queue's. */
const eventBytes = (event: StreamEvent): number => 64 + event.result.length * 2;

/** The session's most recent events with ids (at most 512, at most 4 MiB), in the order written (seed 001, "Replay"). */
export class ReplayBuffer {
  /** Evicted slots are emptied at once (an evicted event may be large); the array is compacted now and then. */
  private events_: (StreamEvent | null)[] = [];
  /** Index of the oldest held event in `events_`. */
  private head = 0;
  private bytes = 0;
  private readonly evicted = new Map<string, TaskEviction>();
  private readonly tracked = new Set<string>();

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
    if (event.taskId !== null) this.track(event.taskId);
    this.events_.push(event);
    this.bytes += eventBytes(event);
    while (this.size > 1 && (this.size > this.capacity || this.bytes > this.budgetBytes)) {
      const oldest = this.events_[this.head]!;
      this.noteEviction(oldest);
      this.bytes -= eventBytes(oldest);
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
    if (event.taskId === null || !this.tracked.has(event.taskId)) return;
    // Every push past the capacity evicts one event: the task's record is updated in place, not replaced.
    const record = this.evicted.get(event.taskId);
    if (record) record.lastId = event.id!;
    else this.evicted.set(event.taskId, { lastId: event.id! });
  }
}
