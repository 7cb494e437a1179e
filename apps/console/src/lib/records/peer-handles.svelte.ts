/**
 * The peer handles a door's session minted (docs/planes.md, "In the console"), from its record: never a handle's
 * secret.
 */
import type { ConsolePeerHandle, ConsolePeerHandlesResponse } from '@murmur/protocol';
import { type Fetch, peerHandlesPath } from './records.js';
import { SessionRecordList } from './session-record-list.svelte.js';

export class PeerHandlesView extends SessionRecordList<ConsolePeerHandle, ConsolePeerHandlesResponse> {
  constructor(options: { fetch?: Fetch } = {}) {
    super(peerHandlesPath, (body) => body.handles ?? [], options);
  }

  get handles(): ConsolePeerHandle[] {
    return this.list;
  }
}
