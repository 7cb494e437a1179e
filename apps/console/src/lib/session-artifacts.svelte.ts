/**
 * A session's artifacts (docs/artifacts.md): the ones it declared, the ones its agent pulled, and which of those it
 * removed, with versions and digests. Read from the door's record plane, else (the door gone) mur console's record
 * API: built from the session's trace, so they show for an ended session too.
 */
import type { ConsoleArtifactsResponse, SessionArtifact } from '@murmur/protocol';
import type { Problem } from './errors.js';
import { Loader } from './loader.svelte.js';
import { artifactsPath, type Fetch, type RecordDoor, readRecordJson } from './records.js';

export class SessionArtifactsView {
  readonly #loader = new Loader<SessionArtifact[]>();
  readonly #fetch: Fetch;

  constructor(options: { fetch?: Fetch } = {}) {
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  get artifacts(): SessionArtifact[] {
    return this.#loader.value ?? [];
  }
  get loaded(): boolean {
    return this.#loader.value !== null;
  }
  get problem(): Problem | null {
    return this.#loader.problem;
  }

  /** Reads the artifacts of the record session `sessionId` (null: no record session, nothing to show), from `door` first. */
  async load(sessionId: string | null, door: RecordDoor | null = null): Promise<void> {
    if (sessionId === null) {
      this.#loader.reset({ keepProblem: true });
      this.#loader.set([]);
      return;
    }
    await this.#loader.load(async (signal) => (await readRecordJson<ConsoleArtifactsResponse>(artifactsPath(sessionId), { fetch: this.#fetch, signal, door }))?.artifacts ?? []);
  }

  dispose(): void {
    this.#loader.reset({ keepProblem: true });
  }
}
