/**
 * The first line of each task's input, for the tasks table and the timeline's task headers: asked of the task's
 * door's record plane (else mur console's record API) in batches (one request per door per tick, whatever the number
 * of rows that want it), kept per task id.
 */
import { firstLine, RECORD_IDS_MAX } from '@murmur/protocol';
import { readSummaries } from '../records/records.js';
import { TokenStore } from '../door/tokens.js';

/** A task the records did not hold yet is asked again after this long. @default 3000 @unit ms */
const RETRY_MS = 3000;

export class TaskInputs {
  #lines = $state<Record<string, string | null>>({});
  readonly #asked = new Map<string, number>();
  /** Wanted task id → the door (host:port) it is on, '' when not said. */
  readonly #wanted = new Map<string, string>();
  readonly #tokens: TokenStore;
  #scheduled = false;

  constructor(options: { tokens?: TokenStore } = {}) {
    this.#tokens = options.tokens ?? new TokenStore();
  }

  /** The input's first line; undefined while unknown, null when the record holds no input text. */
  line(taskId: string): string | null | undefined {
    return this.#lines[taskId];
  }

  /** Asks for these tasks' inputs, unless known or asked recently; `door` (host:port) is the door they are on. */
  want(taskIds: Iterable<string>, door = ''): void {
    const now = Date.now();
    for (const id of taskIds) {
      if (id in this.#lines) continue;
      const asked = this.#asked.get(id);
      if (asked !== undefined && now - asked < RETRY_MS) continue;
      this.#wanted.set(id, door);
    }
    if (this.#wanted.size === 0 || this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const [, door] = this.#wanted.entries().next().value as [string, string];
    const ids = [...this.#wanted]
      .filter(([, d]) => d === door)
      .slice(0, RECORD_IDS_MAX)
      .map(([id]) => id);
    for (const id of ids) {
      this.#wanted.delete(id);
      this.#asked.set(id, Date.now());
    }
    try {
      const found = await readSummaries(ids, { door: door === '' ? null : { key: door, token: this.#tokens.get(door) } });
      const next = { ...this.#lines };
      for (const summary of found) next[summary.taskId] = firstLine(summary.input);
      this.#lines = next;
    } catch {
      // The record API is an addition: without it, rows simply show no input.
    }
    if (this.#wanted.size > 0) {
      this.#scheduled = true;
      queueMicrotask(() => void this.#flush());
    }
  }
}

/** One per page: every table and timeline of the console shares it. */
export const taskInputs = new TaskInputs();
