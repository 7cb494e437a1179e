import { Inject, Injectable } from '@nestjs/common';
import { DOOR_EXTENSION_URI, METHOD, type ResidueItem, type StopSessionResult } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import type { TaskRow } from '../tasks/task.entity.js';
import { TaskLifecycle } from '../tasks/task-lifecycle.js';
import { TaskQueue } from '../tasks/task-queue.js';

/** murmur.StopSession: cancels every live task and reports what the session leaves running; the door keeps serving. */
@Injectable()
export class StopSessionMethod implements RpcMethod {
  readonly method = METHOD.StopSession;

  constructor(
    @Inject(SESSION_CONTEXT) private readonly session: SessionContext,
    @Inject(TaskQueue) private readonly queue: TaskQueue,
    @Inject(TaskLifecycle) private readonly lifecycle: TaskLifecycle,
  ) {}

  async handle(_call: RpcCall): Promise<RpcAnswer> {
    const canceled = await this.queue.cancelAll();
    const result: StopSessionResult = {
      canceled: canceled.map((row) => row.id),
      residue: leftRunning(this.lifecycle.residue(), canceled),
      session_id: this.session.sessionId,
    };
    return { result, extensions: [DOOR_EXTENSION_URI] };
  }
}

/**
 * What a stop leaves running (seed 000, "Residue items"): what the residue sources report once every cancel is
 * written, then each delegation a cancel's residue named — a sub-capsule a cancelled task delegated to, which that
 * task's ending ends. The sources no longer report it once the ending is written (a delegation is residue while a task
 * awaits it), so it is taken from the residue each cancel wrote, as CancelTask answers it; each item once.
 */
function leftRunning(now: ResidueItem[], canceled: readonly TaskRow[]): ResidueItem[] {
  const items = [...now];
  const named = new Set(now.flatMap((item) => (item.kind === 'delegation' ? [item.delegation_id] : [])));
  for (const item of canceled.flatMap((row) => row.residue ?? [])) {
    if (item.kind !== 'delegation' || named.has(item.delegation_id)) continue;
    named.add(item.delegation_id);
    items.push(item);
  }
  return items;
}
