/**
 * The doors `mur console --door URL` added (GET /api/doors): doors not registered on this host, which the console
 * opens by their host:port although they are not on loopback — the operator who started the console named them.
 */
import { type ConsoleAddedDoor, CONSOLE_DOORS_PATH } from '@murmur/protocol';

class AddedDoors {
  #doors = $state.raw<readonly ConsoleAddedDoor[]>([]);
  #loaded = $state(false);
  readonly #fetch: typeof fetch;

  constructor(fetcher: typeof fetch = (input, init) => globalThis.fetch(input, init)) {
    this.#fetch = fetcher;
  }

  get doors(): readonly ConsoleAddedDoor[] {
    return this.#doors;
  }

  /** The list was read (or could not be: then it is empty). */
  get loaded(): boolean {
    return this.#loaded;
  }

  get keys(): ReadonlySet<string> {
    return new Set(this.#doors.map((d) => d.key));
  }

  async load(): Promise<void> {
    try {
      const answer = await this.#fetch(CONSOLE_DOORS_PATH, { headers: { accept: 'application/json' } });
      const body = answer.ok ? ((await answer.json()) as { doors?: unknown }) : null;
      this.#doors = Array.isArray(body?.doors)
        ? body.doors.filter((d): d is ConsoleAddedDoor => typeof d === 'object' && d !== null && typeof (d as ConsoleAddedDoor).key === 'string' && typeof (d as ConsoleAddedDoor).url === 'string')
        : [];
    } catch {
      this.#doors = [];
    } finally {
      this.#loaded = true;
    }
  }
}

export const addedDoors = new AddedDoors();
