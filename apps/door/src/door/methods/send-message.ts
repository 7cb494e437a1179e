import { DOOR_EXTENSION_URI, invalidParams, type JsonRpcErrorObject, readMessageParams, taskNotFound, TERMINAL_STATES, unsupportedForTask } from '@murmur/protocol';
import type { SessionContext } from '../../session/session-context.js';
import type { TaskRow } from '../../tasks/task.entity.js';
import type { TaskService } from '../../tasks/task-service.js';
import type { TaskStore } from '../../tasks/task-store.js';
import { toWireTask } from '../../tasks/task-view.js';
import type { RpcAnswer, RpcCall } from '../rpc-context.js';

/** SendMessage: read the message in full, route it by taskId, and answer when the task settles or at once. */
export class SendMessageHandler {
  constructor(
    private readonly session: SessionContext,
    private readonly store: TaskStore,
    private readonly tasks: TaskService,
  ) {}

  readonly handle = async (call: RpcCall): Promise<RpcAnswer> => {
    const images = this.session.manifest.context.images;
    const verdict = readMessageParams(call.params, { maxImageBytes: images.max_bytes, maxImagesPerTurn: images.max_per_turn, transport: 'http' });
    if (!verdict.ok) return { error: verdict.error };
    const read = verdict.read;
    const extensions = read.usesDoorExtension ? [DOOR_EXTENSION_URI] : undefined;
    const view = this.store.viewFor(call.caller);

    let row: TaskRow;
    if (read.taskId !== null) {
      const target = view.get(read.taskId);
      if (!target) return { error: taskNotFound(read.taskId) };
      const refusal = continuationRefusal(target, read.contextId);
      if (refusal) return { error: refusal };
      row = await this.tasks.reply(target, read.text);
    } else {
      row = await this.tasks.submit(
        { messageId: read.message.messageId, contextId: read.contextId, text: read.text, images: read.images, referenceTaskIds: read.referenceTaskIds },
        call.caller,
      );
    }
    if (!read.returnImmediately && !TERMINAL_STATES.has(row.state)) row = await this.tasks.waitSettled(row.id);
    return { result: { task: toWireTask(this.store.row(row.id) ?? row) }, extensions };
  };
}

function continuationRefusal(target: TaskRow, contextId: string | null): JsonRpcErrorObject | null {
  if (TERMINAL_STATES.has(target.state)) {
    return unsupportedForTask(
      `Task ${target.id} has ended in ${target.state}; send a new message without taskId, in the same contextId, to start a new task`,
      target.id,
      target.state,
    );
  }
  if (target.state !== 'TASK_STATE_INPUT_REQUIRED') {
    return unsupportedForTask(
      `Task ${target.id} is ${target.state}; a task takes a message only while it waits in TASK_STATE_INPUT_REQUIRED`,
      target.id,
      target.state,
    );
  }
  if (contextId !== null && contextId !== target.contextId) {
    return invalidParams(`Invalid params: message.contextId ${contextId} is not the context of task ${target.id}, which is ${target.contextId}`);
  }
  return null;
}
