/**
 * The peer handles a door's session minted (docs/planes.md, "In the console"), read from mur console's record API:
 * built from the session's trace, so they show for an ended session too, and never carry a handle's secret. Only the
 * records on this host are read: a door whose records are elsewhere (one added with `mur console --door`, on another
 * host) has no record session here, and its handles are not available — no door route lists them.
 */
import { CONSOLE_PEER_HANDLES_SUFFIX, CONSOLE_RECORD_SESSION_PREFIX, type ConsolePeerHandle, type ConsolePeerHandlesResponse } from '@murmur/protocol';
import { ConsoleApiError, describeError, isAbort, type Problem } from './errors.js';
import type { Fetch } from './records.js';

export const peerHandlesUrl = (sessionId: string) => `${CONSOLE_RECORD_SESSION_PREFIX}${encodeURIComponent(sessionId)}${CONSOLE_PEER_HANDLES_SUFFIX}`;

export class PeerHandlesView {
  #handles = $state.raw<ConsolePeerHandle[]>([]);
  #loaded = $state(false);
  #problem = $state.raw<Problem | null>(null);
  readonly #fetch: Fetch;
  #abort: AbortController | null = null;

  constructor(options: { fetch?: Fetch } = {}) {
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  get handles(): ConsolePeerHandle[] {
    return this.#handles;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  get problem(): Problem | null {
    return this.#problem;
  }

  /** Reads the handles of the record session `sessionId` (null: no records on this host, nothing to show). */
  async load(sessionId: string | null): Promise<void> {
    this.#abort?.abort();
    if (sessionId === null) {
      this.#handles = [];
      this.#loaded = true;
      return;
    }
    const abort = new AbortController();
    this.#abort = abort;
    const url = peerHandlesUrl(sessionId);
    try {
      const response = await this.#fetch(url, { headers: { accept: 'application/json' }, signal: abort.signal });
      if (!response.ok) throw new ConsoleApiError(`${url} answered HTTP ${response.status}`, response.status);
      const body = (await response.json()) as ConsolePeerHandlesResponse;
      this.#handles = body.handles;
      this.#problem = null;
      this.#loaded = true;
    } catch (error) {
      if (abort.signal.aborted || isAbort(error)) return;
      this.#problem = describeError(error);
    }
  }

  dispose(): void {
    this.#abort?.abort();
  }
}
