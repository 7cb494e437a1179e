/** The formations on this host, read from `GET /api/formations` (docs/console.md, "Formations"); refreshed by its pages. */
import { CONSOLE_FORMATIONS_PATH, type ConsoleFormation } from '@murmur/protocol';
import { ConsoleApiError, type Problem } from '../io/errors.js';
import { readFormations } from './formations.js';
import { Loader } from '../io/loader.svelte.js';

export class Formations {
  readonly #loader = new Loader<ConsoleFormation[]>();
  readonly #fetch: typeof fetch;

  constructor(options: { fetch?: typeof fetch } = {}) {
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

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
    await this.#loader.load(async (signal) => {
      let response: Response;
      try {
        response = await this.#fetch(CONSOLE_FORMATIONS_PATH, { headers: { accept: 'application/json' }, signal });
      } catch (error) {
        throw new ConsoleApiError(`no answer from ${CONSOLE_FORMATIONS_PATH}: ${error instanceof Error ? error.message : String(error)}`, null);
      }
      if (!response.ok) {
        // A refusal says why in its body: a browser on another host is refused not_loopback (docs/console.md, "Across hosts").
        const refusal = (await response.json().catch(() => null)) as { message?: unknown } | null;
        const why = typeof refusal?.message === 'string' ? `: ${refusal.message}` : '';
        throw new ConsoleApiError(`${CONSOLE_FORMATIONS_PATH} answered HTTP ${response.status}${why}`, response.status);
      }
      return readFormations(await response.json().catch(() => null));
    });
  }
}
