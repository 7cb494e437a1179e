import { TERMINAL_STATES } from '@murmur/protocol';
import type { TaskRow } from './task.entity.js';

/**
 * Bytes of ended tasks kept in memory beside the live ones. An ended task never changes again, so one that falls out
 * is read from SQLite when asked for; the live ones are always here, since the lifecycle decides on them.
 * @default 8 MiB
 * @unit bytes (estimated: UTF-16 text plus a fixed overhead per row)
 */
const TASK_CACHE_BYTES = 8 * 1024 * 1024;

/** Fields, keys and object headers of a row with no text in it. */
const ROW_OVERHEAD_BYTES = 512;

/** An upper estimate of the heap a row holds: strings at two bytes a character, plus the fixed part. */
function rowBytes(row: TaskRow): number {
  const text = (s: string | null) => (s === null ? 0 : s.length * 2);
  const json = (v: unknown) => (v === null || v === undefined ? 0 : JSON.stringify(v).length * 2);
  return ROW_OVERHEAD_BYTES + text(row.statusText) + text(row.response) + text(row.prompt) + json(row.residue) + json(row.murmur);
}

/**
 * The store's in-memory mirror, bounded by bytes: every live task (submitted, working, waiting for input), and the
 * most recently written or read ended tasks up to the byte budget, least recently used out first. The row written
 * last always stays, even alone over the budget, so whoever just wrote it can read it back.
 */
export class TaskCache {
  private readonly live = new Map<string, TaskRow>();
  /** Ended tasks, least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly ended = new Map<string, { row: TaskRow; bytes: number }>();
  private endedBytes = 0;
  /** The ended task used last, already at the end of `ended`: reading it again moves nothing (a Map delete and set per GetTask showed in profiles). */
  private newestEnded: string | null = null;

  constructor(private readonly budgetBytes = TASK_CACHE_BYTES) {}

  get(id: string): TaskRow | undefined {
    const live = this.live.get(id);
    if (live) return live;
    const hit = this.ended.get(id);
    if (!hit) return undefined;
    if (id !== this.newestEnded) {
      this.ended.delete(id);
      this.ended.set(id, hit);
      this.newestEnded = id;
    }
    return hit.row;
  }

  /** A newer version of a task, or an ended one read back from the database (ignored when an equal or newer one is held). */
  put(row: TaskRow): void {
    const held = this.live.get(row.id) ?? this.ended.get(row.id)?.row;
    if (held && held.change >= row.change) return;
    this.forget(row.id);
    if (!TERMINAL_STATES.has(row.state)) {
      this.live.set(row.id, row);
      return;
    }
    const bytes = rowBytes(row);
    this.ended.set(row.id, { row, bytes });
    this.newestEnded = row.id;
    this.endedBytes += bytes;
    for (const [id, entry] of this.ended) {
      if (this.endedBytes <= this.budgetBytes || id === row.id) break;
      this.ended.delete(id);
      this.endedBytes -= entry.bytes;
    }
  }

  liveRows(): TaskRow[] {
    return [...this.live.values()];
  }

  /** What the ended tasks held here take, by the estimate. */
  get heldBytes(): number {
    return this.endedBytes;
  }

  get size(): number {
    return this.live.size + this.ended.size;
  }

  private forget(id: string): void {
    this.live.delete(id);
    const entry = this.ended.get(id);
    if (entry) {
      this.ended.delete(id);
      this.endedBytes -= entry.bytes;
      if (id === this.newestEnded) this.newestEnded = null;
    }
  }
}
