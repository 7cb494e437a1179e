/**
 * The rollups page's read (docs/console.md, "Rollups"): the session behind a door (from the records on this host) or
 * a formation's member sessions, then the rollup mur console computes of their tasks with the tasks table's filters.
 */
import type { ConsoleRollup } from '@murmur/protocol';
import { CONSOLE_FORMATIONS_PATH } from '@murmur/protocol';
import { readFormations } from '../formations/formations.js';
import { requireJson } from '../io/console-api.js';
import { ConsoleApiError } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';
import { type RecordDoor, readRollup, recordSessionOfDoor, type RollupSearch } from '../records/records.js';
import type { TaskFilters } from '../tasks/task-list.svelte.js';

/** A door's session (its record plane first, with `recordDoor`, else the records on this host), or a formation's members. */
export type RollupScope = { door: string; recordDoor?: RecordDoor | null } | { formationKey: string };

/** The tasks table's filters as the rollup takes them. */
export const rollupSearch = (filters: TaskFilters): RollupSearch => ({
  q: filters.query,
  state: filters.state,
  contextId: filters.contextId,
  since: filters.changedSince,
});

async function sessionIdsOf(scope: RollupScope, signal: AbortSignal): Promise<{ sessionId: string } | { sessionIds: string[] }> {
  if ('door' in scope) {
    const sessionId = await recordSessionOfDoor(scope.door, { signal, door: scope.recordDoor ?? null });
    if (sessionId === null) throw new ConsoleApiError(`neither the door ${scope.door} nor the records on this host give its session's record`, 404);
    return { sessionId };
  }
  const formation = (await requireJson(CONSOLE_FORMATIONS_PATH, { read: readFormations, signal })).find((f) => f.key === scope.formationKey);
  if (!formation) throw new ConsoleApiError(`the formation ${scope.formationKey} is not registered on this host`, 404);
  return { sessionIds: formation.members.map((m) => m.sessionId) };
}

export class RollupPage {
  readonly #loader = new Loader<ConsoleRollup>();
  readonly #scope: RollupScope;
  readonly #search: RollupSearch;

  constructor(scope: RollupScope, search: RollupSearch) {
    this.#scope = scope;
    this.#search = search;
  }

  get rollup(): ConsoleRollup | null {
    return this.#loader.value;
  }
  get loading(): boolean {
    return this.#loader.loading;
  }
  get problem() {
    return this.#loader.problem;
  }

  async load(): Promise<void> {
    await this.#loader.load(async (signal) => {
      const door = 'door' in this.#scope ? (this.#scope.recordDoor ?? null) : null;
      const rollup = await readRollup(await sessionIdsOf(this.#scope, signal), this.#search, { signal, door });
      if (rollup === null) throw new ConsoleApiError('the session’s records are neither on its door nor on this host', 404);
      return rollup;
    });
  }
}
