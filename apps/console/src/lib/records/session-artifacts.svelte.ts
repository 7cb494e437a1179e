/**
 * A session's artifacts (docs/artifacts.md): the ones it declared, the ones its agent pulled, and which of those it
 * removed, with versions and digests, from its record.
 */
import type { ConsoleArtifactsResponse, SessionArtifact } from '@murmur/protocol';
import { artifactsPath } from './records.js';
import { SessionRecordList } from './session-record-list.svelte.js';

export class SessionArtifactsView extends SessionRecordList<SessionArtifact, ConsoleArtifactsResponse> {
  constructor() {
    super(artifactsPath, (body) => body.artifacts ?? []);
  }

  get artifacts(): SessionArtifact[] {
    return this.list;
  }
}
