/** The formations on this host, read from `GET /api/formations` (docs/console.md, "Formations"); refreshed by its pages. */
import { CONSOLE_FORMATIONS_PATH, type ConsoleFormation } from '@murmur/protocol';
import { requireJson } from '../io/console-api.js';
import type { Problem } from '../io/errors.js';
import { readFormations } from './formations.js';
import { Loader } from '../io/loader.svelte.js';

export class Formations {
  readonly #loader = new Loader<ConsoleFormation[]>();
  /** null until the first answer. */
  get list(): ConsoleFormation[] | null {
    return this.#loader.value;
  }
  get loading(): boolean {
    return this.#loader.loading;
  }
  get problem(): Problem | null {
    return this.#loader.problem;
  }

  find(key: string): ConsoleFormation | null {
    return this.#loader.value?.find((f) => f.key === key) ?? null;
  }

  async refresh(): Promise<void> {
    // A refusal says why in its body (the getter keeps its message): a browser on another host is refused not_loopback
    // (docs/console.md, "Across hosts").
    await this.#loader.load((signal) => requireJson(CONSOLE_FORMATIONS_PATH, { read: readFormations, signal }));
  }
}
