/**
 * The doors `mur console --door URL` added (GET /api/doors): doors not registered on this host, which the console
 * opens by their host:port although they are not on loopback — the operator who started the console named them.
 */
import { type ConsoleAddedDoor, CONSOLE_DOORS_PATH } from '@murmur/protocol';
import { getJson } from '../io/console-api.js';

/** Reads the body of `GET /api/doors`, keeping the entries it can read. */
function readAddedDoors(body: unknown): ConsoleAddedDoor[] {
  const doors = (body as { doors?: unknown } | null)?.doors;
  if (!Array.isArray(doors)) return [];
  return doors.filter(
    (d): d is ConsoleAddedDoor =>
      typeof d === 'object' && d !== null && typeof (d as ConsoleAddedDoor).key === 'string' && typeof (d as ConsoleAddedDoor).url === 'string',
  );
}

class AddedDoors {
  #doors = $state.raw<readonly ConsoleAddedDoor[]>([]);
  #loaded = $state(false);
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
      const answer = await getJson(CONSOLE_DOORS_PATH, { read: readAddedDoors });
      this.#doors = answer.ok ? answer.body : [];
    } catch {
      this.#doors = [];
    } finally {
      this.#loaded = true;
    }
  }
}

export const addedDoors = new AddedDoors();
