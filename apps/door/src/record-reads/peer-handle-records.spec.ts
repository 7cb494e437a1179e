/** The console's peer handles, rebuilt from a trace's records (docs/planes.md, "In the console"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peerHandlesOf } from './peer-handle-records.js';

const mint = (id: string, at: string, expires: string, uses = 1) => ({
  ts: at,
  type: 'peer_handle_mint' as const,
  task_id: 'tsk_1',
  handle_id: id,
  audience: 'reader',
  path: 'r.txt',
  expires_at: expires,
  uses,
});

test('mint, redeem and refusal records give each handle its uses and state, newest first', () => {
  const records = [
    mint('hdl_a', '2026-01-01T00:00:00.000Z', '2026-01-01T00:15:00.000Z'),
    mint('hdl_b', '2026-01-01T00:01:00.000Z', '2026-01-01T00:16:00.000Z', 2),
    mint('hdl_c', '2026-01-01T00:02:00.000Z', '2026-01-01T00:02:01.000Z'),
    { ts: '2026-01-01T00:03:00.000Z', type: 'peer_handle_redeem' as const, handle_id: 'hdl_a', audience: 'reader', size: 22, uses_left: 0 },
    { ts: '2026-01-01T00:04:00.000Z', type: 'peer_handle_refused' as const, handle_id: 'hdl_a', reason: 'used_up', audience: 'reader' },
    { ts: '2026-01-01T00:04:00.000Z', type: 'peer_handle_redeem' as const, handle_id: 'hdl_unknown', audience: 'reader', size: 1, uses_left: 0 },
  ];
  const now = Date.parse('2026-01-01T00:05:00.000Z');
  const handles = peerHandlesOf(records, { nowMs: now, sessionEnded: false });
  assert.deepEqual(
    handles.map((h) => [h.handleId, h.state, h.used]),
    [
      ['hdl_c', 'expired', 0],
      ['hdl_b', 'live', 0],
      ['hdl_a', 'used_up', 1],
    ],
  );
  assert.deepEqual(handles[2].refusals, [{ at: '2026-01-01T00:04:00.000Z', reason: 'used_up', audience: 'reader' }]);
  assert.deepEqual(handles[2].redeems, [{ at: '2026-01-01T00:03:00.000Z', audience: 'reader', size: 22 }]);
  assert.equal(peerHandlesOf(records, { nowMs: now, sessionEnded: true })[1].state, 'session_ended');
});
