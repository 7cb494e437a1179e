/** The formations on this host, read from `GET /api/formations` (docs/console.md, "Formations"); refreshed by its pages. */
import { CONSOLE_FORMATIONS_PATH, type ConsoleFormation } from '@murmur/protocol';
import { ConsoleApiError, describeError, type Problem } from './errors.js';
import { readFormations } from './formations.js';

export class Formations {
  #list = $state.raw<ConsoleFormation[] | null>(null);
  #loading = $state(false);
  #problem = $state.raw<Problem | null>(null);
  readonly #fetch: typeof fetch;
  #request = 0;

  constructor(options: { fetch?: typeof fetch } = {}) {
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** null until the first answer. */
  get list(): ConsoleFormation[] | null {
    return this.#list;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get problem(): Problem | null {
    return this.#problem;
  }

  find(key: string): ConsoleFormation | null {
    return this.#list?.find((f) => f.key === key) ?? null;
  }

  async refresh(): Promise<void> {
    const request = ++this.#request;
    this.#loading = true;
    try {
      let response: Response;
      try {
        response = await this.#fetch(CONSOLE_FORMATIONS_PATH, { headers: { accept: 'application/json' } });
      } catch (error) {
        throw new ConsoleApiError(`no answer from ${CONSOLE_FORMATIONS_PATH}: ${error instanceof Error ? error.message : String(error)}`, null);
      }
      if (!response.ok) throw new ConsoleApiError(`${CONSOLE_FORMATIONS_PATH} answered HTTP ${response.status}`, response.status);
      const list = readFormations(await response.json().catch(() => null));
      if (request !== this.#request) return;
      this.#list = list;
      this.#problem = null;
    } catch (error) {
      if (request !== this.#request) return;
      this.#problem = describeError(error);
    } finally {
      if (request === this.#request) this.#loading = false;
    }
  }
}
