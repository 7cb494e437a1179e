/**
 * The peer handles a door's session minted (docs/planes.md, "In the console"), read from the door's record plane, else
 * (the door gone) mur console's record API: built from the session's trace, so they show for an ended session too,
 * and never carry a handle's secret.
 */
import type { ConsolePeerHandle, ConsolePeerHandlesResponse } from '@murmur/protocol';
import type { Problem } from './errors.js';
import { Loader } from './loader.svelte.js';
import { type Fetch, peerHandlesPath, type RecordDoor, readRecordJson } from './records.js';

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

  /** Reads the handles of the record session `sessionId` (null: no record session, nothing to show), from `door` first. */
  async load(sessionId: string | null, door: RecordDoor | null = null): Promise<void> {
    if (sessionId === null) {
      // Nothing to read: the read under way is dropped, and the problem it may have met stays.
      this.#loader.reset({ keepProblem: true });
      this.#loader.set([]);
      return;
    }
    await this.#loader.load(async (signal) => (await readRecordJson<ConsolePeerHandlesResponse>(peerHandlesPath(sessionId), { fetch: this.#fetch, signal, door }))?.handles ?? []);
  }

  dispose(): void {
    this.#loader.reset({ keepProblem: true });
  }
}
