/**
 * The peer handles a door's session minted (docs/planes.md, "In the console"), read from mur console's record API:
 * built from the session's trace, so they show for an ended session too, and never carry a handle's secret. Only the
 * records on this host are read: a door whose records are elsewhere (one added with `mur console --door`, on another
 * host) has no record session here, and its handles are not available — no door route lists them.
 */
import { CONSOLE_PEER_HANDLES_SUFFIX, CONSOLE_RECORD_SESSION_PREFIX, type ConsolePeerHandle, type ConsolePeerHandlesResponse } from '@murmur/protocol';
import { ConsoleApiError, type Problem } from './errors.js';
import { Loader } from './loader.svelte.js';
import type { Fetch } from './records.js';

export const peerHandlesUrl = (sessionId: string) => `${CONSOLE_RECORD_SESSION_PREFIX}${encodeURIComponent(sessionId)}${CONSOLE_PEER_HANDLES_SUFFIX}`;

export class PeerHandlesView {
  readonly #loader = new Loader<ConsolePeerHandle[]>();
  readonly #fetch: Fetch;

  constructor(options: { fetch?: Fetch } = {}) {
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  get handles(): ConsolePeerHandle[] {
    return this.#loader.value ?? [];
  }
  get loaded(): boolean {
    return this.#loader.value !== null;
  }
  get problem(): Problem | null {
    return this.#loader.problem;
  }

  /** Reads the handles of the record session `sessionId` (null: no records on this host, nothing to show). */
  async load(sessionId: string | null): Promise<void> {
    if (sessionId === null) {
      // Nothing to read: the read under way is dropped, and the problem it may have met stays.
      this.#loader.reset({ keepProblem: true });
      this.#loader.set([]);
      return;
    }
    const url = peerHandlesUrl(sessionId);
    await this.#loader.load(async (signal) => {
      const response = await this.#fetch(url, { headers: { accept: 'application/json' }, signal });
      if (!response.ok) throw new ConsoleApiError(`${url} answered HTTP ${response.status}`, response.status);
      return ((await response.json()) as ConsolePeerHandlesResponse).handles;
    });
  }

  dispose(): void {
    this.#loader.reset({ keepProblem: true });
  }
}
