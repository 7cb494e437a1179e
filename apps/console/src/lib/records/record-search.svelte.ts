/**
 * A door's record session (docs/console.md, "Find and share", "Every door serves its record"): the door's own, read
 * from its record plane, else the one the records on this host name for its address. It is what the tasks table's
 * search reads (the session search) and what the session's export and peer handles name.
 */
import { findRecordSession, type RecordDoor, searchSession } from './records.js';
import type { TaskFilters, TaskPage } from '../tasks/task-list.svelte.js';

export class RecordSearch {
  #sessionId = $state<string | null>(null);
  #from = $state<'door' | 'console' | null>(null);
  readonly #door: string;
  readonly #recordDoor: () => RecordDoor | null;

  /** `door`: host:port; `options.door`: the door as the record readers take it now (null: read mur console's records only). */
  constructor(door: string, options: { door?: () => RecordDoor | null } = {}) {
    this.#door = door;
    this.#recordDoor = options.door ?? (() => ({ key: door, token: null }));
  }

  /** This door's record session, or null until found / when neither the door nor this host's records name one. */
  get sessionId(): string | null {
    return this.#sessionId;
  }

  /** Where the session's record is read: the door's record plane, or mur console's records on this host. */
  get from(): 'door' | 'console' | null {
    return this.#from;
  }

  /** The door as the record readers take it now, or null while it is not to be asked. */
  get door(): RecordDoor | null {
    return this.#recordDoor();
  }

  /** Finds this door's record session: from the door, else from the records on this host. */
  async find(signal?: AbortSignal): Promise<string | null> {
    try {
      const found = await findRecordSession(this.#door, { signal, door: this.door });
      this.#sessionId = found?.sessionId ?? null;
      this.#from = found?.from ?? null;
    } catch {
      this.#sessionId = null;
      this.#from = null;
    }
    return this.#sessionId;
  }

  /** A search of the tasks table: the record API's session search, as table rows. */
  async search(filters: TaskFilters, pageToken: string, signal: AbortSignal): Promise<TaskPage> {
    const sessionId = this.#sessionId ?? (await this.find(signal));
    if (sessionId === null) return { rows: [], nextPageToken: '', totalSize: 0 };
    const page = await searchSession(
      sessionId,
      {
        q: filters.query,
        state: filters.state,
        contextId: filters.contextId,
        since: filters.changedSince,
        limit: filters.pageSize,
        cursor: pageToken === '' ? '0' : pageToken,
      },
      { signal, door: this.#from === 'door' ? this.door : null },
    );
    return {
      rows: (page?.tasks ?? []).map((t) => ({ id: t.taskId, contextId: t.contextId, state: t.state, statusText: t.statusText ?? '', changedAt: t.updatedAt })),
      nextPageToken: page?.nextCursor ?? '',
      totalSize: page?.total ?? 0,
    };
  }
}
