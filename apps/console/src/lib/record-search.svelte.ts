/**
 * A door's session in the records on this host (docs/console.md, "Find and share"): found by the door's address,
 * it is what the tasks table's search reads (the record API's session search) and what the session's export and
 * peer handles name. A door whose records are on another host has none.
 */
import { type Fetch, recordSessionOfDoor, searchSession } from './records.js';
import type { TaskFilters, TaskPage } from './task-list.svelte.js';

export class RecordSearch {
  #sessionId = $state<string | null>(null);
  readonly #door: string;
  readonly #fetch: Fetch | undefined;

  /** `door`: host:port. */
  constructor(door: string, options: { fetch?: Fetch } = {}) {
    this.#door = door;
    this.#fetch = options.fetch;
  }

  /** This door's session in the records on this host, or null until found / when not on this host. */
  get sessionId(): string | null {
    return this.#sessionId;
  }

  /** Finds this door's session in the records on this host (none for a door elsewhere). */
  async find(signal?: AbortSignal): Promise<string | null> {
    try {
      this.#sessionId = await recordSessionOfDoor(this.#door, { fetch: this.#fetch, signal });
    } catch {
      this.#sessionId = null;
    }
    return this.#sessionId;
  }

  /** A search of the tasks table: the record API's session search, as table rows. */
  async search(filters: TaskFilters, pageToken: string, signal: AbortSignal): Promise<TaskPage> {
    const sessionId = this.#sessionId ?? (await this.find(signal));
    if (sessionId === null) return { rows: [], nextPageToken: '', totalSize: 0 };
    const page = await searchSession(
      sessionId,
      { q: filters.query, state: filters.state, contextId: filters.contextId, since: filters.changedSince, limit: filters.pageSize, cursor: pageToken === '' ? '0' : pageToken },
      { fetch: this.#fetch, signal },
    );
    return {
      rows: (page?.tasks ?? []).map((t) => ({ id: t.taskId, contextId: t.contextId, state: t.state, statusText: t.statusText ?? '', changedAt: t.updatedAt })),
      nextPageToken: page?.nextCursor ?? '',
      totalSize: page?.total ?? 0,
    };
  }
}
