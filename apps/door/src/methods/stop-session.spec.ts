/**
 * murmur.StopSession's residue (seed 000, "Residue items"): a sub-capsule a cancelled task delegated to is listed
 * even though the residue sources no longer report it once that task's ending is written — whichever of the two runs
 * first, the delegation's settling or the answer (test/delegation.test.ts is the same on a real door). Fakes stand
 * for the queue and the lifecycle.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResidueItem, StopSessionResult } from '@murmur/protocol';
import type { RpcCall } from '../rpc/rpc-context.js';
import type { SessionContext } from '../session/session-context.js';
import type { TaskRow } from '../tasks/task.entity.js';
import type { TaskLifecycle } from '../tasks/task-lifecycle.js';
import type { TaskQueue } from '../tasks/task-queue.js';
import { StopSessionMethod } from './stop-session.js';

const shell = (workId: string): ResidueItem => ({ kind: 'detached_shell', work_id: workId, binary: 'bash', command: 'sleep 30', started_at_ms: 1 });
const delegation = (id: string): ResidueItem => ({
  kind: 'delegation',
  delegation_id: id,
  capsule: 'worker',
  version: '0.2.0',
  child_session_id: 'ses_c',
  child_workdir: '/c',
});

async function stop(canceled: { id: string; residue: ResidueItem[] | null }[], runningNow: ResidueItem[]): Promise<StopSessionResult> {
  const queue = { cancelAll: async () => canceled as TaskRow[] } as unknown as TaskQueue;
  const lifecycle = { residue: () => runningNow } as unknown as TaskLifecycle;
  const method = new StopSessionMethod({ sessionId: 'ses_s' } as SessionContext, queue, lifecycle);
  const answer = await method.handle({} as RpcCall);
  assert.ok('result' in answer);
  return answer.result as StopSessionResult;
}

test('a delegation the cancels ended is residue, named by the residue the cancel wrote; each item once', async () => {
  const result = await stop(
    [
      { id: 'tsk_a', residue: [shell('wrk_old'), delegation('dlg_a'), delegation('dlg_b')] },
      { id: 'tsk_b', residue: [delegation('dlg_b')] },
    ],
    [shell('wrk_1')],
  );
  assert.deepEqual(result, { canceled: ['tsk_a', 'tsk_b'], residue: [shell('wrk_1'), delegation('dlg_a'), delegation('dlg_b')], session_id: 'ses_s' });
});

test('shells are as the sources report them now; nothing cancelled and nothing running answers []', async () => {
  assert.deepEqual((await stop([{ id: 'tsk_a', residue: [shell('wrk_gone')] }], [])).residue, [], 'a command that ended since the cancel is not listed');
  assert.deepEqual(await stop([], []), { canceled: [], residue: [], session_id: 'ses_s' });
  assert.deepEqual((await stop([], [delegation('dlg_live')])).residue, [delegation('dlg_live')], 'a delegation a task still awaits is listed once');
});
