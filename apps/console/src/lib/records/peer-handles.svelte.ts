/**
 * The peer handles a door's session minted (docs/planes.md, "In the console"), from its record: never a handle's
 * secret.
 */
import type { ConsolePeerHandle, ConsolePeerHandlesResponse } from '@murmur/protocol';
import { peerHandlesPath } from './records.js';
import { SessionRecordList } from './session-record-list.svelte.js';

export class PeerHandlesView extends SessionRecordList<ConsolePeerHandle, ConsolePeerHandlesResponse> {
  constructor() {
    super(peerHandlesPath, (body) => body.handles ?? []);
  }

  get handles(): ConsolePeerHandle[] {
    return this.list;
  }
}
