/**
 * A list a session's record keeps beside its tasks (its peer handles, its artifacts), read from the door's record plane,
 * else (the door gone) mur console's record API: built from the session's trace, so it shows for an ended session too.
 */
import type { Problem } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';
import { type RecordDoor, readRecordJson } from './records.js';

export class SessionRecordList<T, Body extends object> {
  readonly #loader = new Loader<T[]>();
  readonly #path: (sessionId: string) => string;
  readonly #items: (body: Body) => T[];

  /** `path`: the record path of the session's list; `items`: the list in the answer's body. */
  constructor(path: (sessionId: string) => string, items: (body: Body) => T[]) {
    this.#path = path;
    this.#items = items;
  }

  get list(): T[] {
    return this.#loader.value ?? [];
  }
  get loaded(): boolean {
    return this.#loader.value !== null;
  }
  get problem(): Problem | null {
    return this.#loader.problem;
  }

  /** Reads the list of the record session `sessionId` (null: no record session, nothing to show), from `door` first. */
  async load(sessionId: string | null, door: RecordDoor | null = null): Promise<void> {
    if (sessionId === null) {
      // Nothing to read: the read under way is dropped, and the problem it may have met stays.
      this.#loader.reset({ keepProblem: true });
      this.#loader.set([]);
      return;
    }
    await this.#loader.load(async (signal) => {
      const body = await readRecordJson<Body>(this.#path(sessionId), { signal, door });
      return body === null ? [] : this.#items(body);
    });
  }

  dispose(): void {
    this.#loader.reset({ keepProblem: true });
  }
}
