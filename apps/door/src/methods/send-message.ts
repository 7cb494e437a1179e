import { Inject, Injectable } from '@nestjs/common';
import { METHOD, TERMINAL_STATES } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { TaskLifecycle } from '../tasks/task-lifecycle.js';
import { TaskStore } from '../tasks/task-store.js';
import { toWireTask } from '../tasks/wire-task.js';
import { HeldRequests, requestBytes } from './held-requests.js';
import { MessageIntake } from './message-intake.js';

/** SendMessage: answers when the task settles (ends or pauses for input), or at once with returnImmediately. */
@Injectable()
export class SendMessageMethod implements RpcMethod {
  readonly method = METHOD.SendMessage;
  private readonly held = new HeldRequests();

  constructor(
    @Inject(MessageIntake) private readonly intake: MessageIntake,
    @Inject(TaskStore) private readonly store: TaskStore,
    @Inject(TaskLifecycle) private readonly lifecycle: TaskLifecycle,
  ) {}

  async handle(call: RpcCall): Promise<RpcAnswer> {
    const taken = await this.intake.take(call);
    if ('error' in taken) return taken;
    let row = taken.row;
    if (!taken.read.returnImmediately && !TERMINAL_STATES.has(row.state)) {
      // Past the held-request budget the answer comes at once, as with returnImmediately.
      const release = this.held.take(requestBytes(call.headers, taken.read.text.length));
      if (release) {
        try {
          row = await this.lifecycle.waitSettled(row.id);
        } finally {
          release();
        }
      }
    }
    return { result: { task: toWireTask(this.store.row(row.id) ?? row) }, extensions: taken.extensions.length > 0 ? taken.extensions : undefined };
  }
}
