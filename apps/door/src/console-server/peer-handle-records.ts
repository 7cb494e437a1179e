import type { ConsolePeerHandle, PeerHandleState } from '@murmur/protocol';
import type { TraceRecord } from './trace-reader.js';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * The peer handles a session minted, rebuilt from its trace (docs/planes.md, "In the console"): share-file writes
 * `peer_handle_mint`, the peer plane `peer_handle_redeem` and `peer_handle_refused`, each naming the handle by id and
 * never by its secret. Reading the records rather than the door's memory works for an ended session too, and adds no
 * route to the door: its check order (seed 000) is untouched. Newest minted first.
 */
export function peerHandlesOf(records: readonly TraceRecord[], options: { nowMs: number; sessionEnded: boolean }): ConsolePeerHandle[] {
  const byId = new Map<string, ConsolePeerHandle>();
  for (const record of records) {
    const id = text(record.handle_id);
    if (id === null) continue;
    if (record.type === 'peer_handle_mint') {
      byId.set(id, {
        handleId: id,
        taskId: text(record.task_id),
        audience: text(record.audience) ?? '',
        path: text(record.path) ?? '',
        mintedAt: record.ts,
        expiresAt: text(record.expires_at) ?? record.ts,
        uses: count(record.uses) ?? 1,
        used: 0,
        state: 'live',
        redeems: [],
        refusals: [],
      });
      continue;
    }
    const handle = byId.get(id);
    if (handle === undefined) continue;
    if (record.type === 'peer_handle_redeem') {
      handle.redeems.push({ at: record.ts, audience: text(record.audience) ?? '', size: count(record.size) });
      const left = count(record.uses_left);
      handle.used = left === null ? handle.used + 1 : handle.uses - left;
    } else if (record.type === 'peer_handle_refused') {
      handle.refusals.push({ at: record.ts, reason: text(record.reason) ?? 'unknown', audience: text(record.audience) });
    }
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
