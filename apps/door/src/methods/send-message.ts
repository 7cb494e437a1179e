import { TERMINAL_STATES } from '@murmur/protocol';
import type { TaskService } from '../tasks/task-service.js';
import type { TaskStore } from '../tasks/task-store.js';
import { toWireTask } from '../tasks/task-view.js';
import type { RpcAnswer, RpcCall } from '../rpc/rpc-context.js';
import type { MessageIntake } from './message-intake.js';

/** SendMessage: answers when the task settles (ends or pauses for input), or at once with returnImmediately. */
export class SendMessageHandler {
  constructor(
    private readonly intake: MessageIntake,
    private readonly store: TaskStore,
    private readonly tasks: TaskService,
  ) {}

  readonly handle = async (call: RpcCall): Promise<RpcAnswer> => {
    const taken = await this.intake.take(call);
    if ('error' in taken) return taken;
    let row = taken.row;
    if (!taken.read.returnImmediately && !TERMINAL_STATES.has(row.state)) row = await this.tasks.waitSettled(row.id);
    return { result: { task: toWireTask(this.store.row(row.id) ?? row) }, extensions: taken.extensions.length > 0 ? taken.extensions : undefined };
  };
}
