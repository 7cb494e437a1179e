import type { ConsolePeerHandle, PeerHandleState } from '@murmur/protocol';
import type { TraceLine } from '../records/trace-schema.js';

/**
 * The peer handles a session minted, rebuilt from its trace (docs/planes.md, "In the console"): share-file writes
 * `peer_handle_mint`, the peer plane `peer_handle_redeem` and `peer_handle_refused`, each naming the handle by id and
 * never by its secret. Reading the records rather than the door's memory works for an ended session too, and adds no
 * route to the door: its check order (seed 000) is untouched. Newest minted first.
 */
export function peerHandlesOf(records: readonly TraceLine[], options: { nowMs: number; sessionEnded: boolean }): ConsolePeerHandle[] {
  const byId = new Map<string, ConsolePeerHandle>();
  for (const record of records) {
    if (record.type !== 'peer_handle_mint' && record.type !== 'peer_handle_redeem' && record.type !== 'peer_handle_refused') continue;
    if (record.type === 'peer_handle_mint') {
      byId.set(record.handle_id, {
        handleId: record.handle_id,
        taskId: record.task_id,
        audience: record.audience,
        path: record.path,
        mintedAt: record.ts,
        expiresAt: record.expires_at,
        uses: record.uses,
        used: 0,
        state: 'live',
        redeems: [],
        refusals: [],
      });
      continue;
    }
    const handle = byId.get(record.handle_id);
    if (handle === undefined) continue;
    if (record.type === 'peer_handle_redeem') {
      handle.redeems.push({ at: record.ts, audience: record.audience, size: record.size });
      handle.used = handle.uses - record.uses_left;
    } else handle.refusals.push({ at: record.ts, reason: record.reason, audience: record.audience });
  }
  const handles = [...byId.values()];
  for (const handle of handles) handle.state = stateOf(handle, options);
  return handles.reverse();
}

function stateOf(handle: ConsolePeerHandle, { nowMs, sessionEnded }: { nowMs: number; sessionEnded: boolean }): PeerHandleState {
  if (handle.used >= handle.uses) return 'used_up';
  if (nowMs >= Date.parse(handle.expiresAt)) return 'expired';
  return sessionEnded ? 'session_ended' : 'live';
}
