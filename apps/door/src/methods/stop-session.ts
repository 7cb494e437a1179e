import { Inject, Injectable } from '@nestjs/common';
import { DOOR_EXTENSION_URI, METHOD, type StopSessionResult } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
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
    const result: StopSessionResult = { canceled, residue: this.lifecycle.residue(), session_id: this.session.sessionId };
    return { result, extensions: [DOOR_EXTENSION_URI] };
  }
}
