import {
  DOOR_EXTENSION_URI,
  invalidParams,
  type JsonRpcErrorObject,
  type ReadMessage,
  readMessageParams,
  TERMINAL_STATES,
  taskNotFound,
  unsupportedForTask,
} from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import type { TaskRow } from '../tasks/task.entity.js';
import { type TaskService, TaskNotWaitingError } from '../tasks/task-service.js';
import type { TaskStore } from '../tasks/task-store.js';
import { fenceUntrusted } from '../tools/untrusted-fence.js';
import type { RpcCall } from '../rpc/rpc-context.js';
import { trustOf } from '../auth/message-trust.js';

export type Intake = { error: JsonRpcErrorObject } | { row: TaskRow; read: ReadMessage; continued: boolean; extensions: string[] };

/**
 * SendMessage and SendStreamingMessage alike: read the message in full (every refusal before anything starts),
 * then route it by taskId — a reply to a waiting task, or a new task (which may be rejected).
 */
export class MessageIntake {
  constructor(
    private readonly session: SessionContext,
    private readonly store: TaskStore,
    private readonly tasks: TaskService,
  ) {}

  async take(call: RpcCall): Promise<Intake> {
    const images = this.session.manifest.context.images;
    const verdict = readMessageParams(call.params, { maxImageBytes: images.max_bytes, maxImagesPerTurn: images.max_per_turn, transport: 'http' });
    if (!verdict.ok) return { error: verdict.error };
    const read = verdict.read;
    const trust = trustOf(call.rawHeaders);
    const extensions = read.usesDoorExtension ? [DOOR_EXTENSION_URI] : [];
    if (read.taskId !== null) {
      const target = this.store.viewFor(call.caller).get(read.taskId);
      if (!target) return { error: taskNotFound(read.taskId) };
      const refusal = continuationRefusal(target, read.contextId);
      if (refusal) return { error: refusal };
      try {
        // An untrusted reply reaches the agent inside the untrusted fence, as an untrusted task's text does.
        const reply = trust.trust === 'untrusted' ? fenceUntrusted(`task:${trust.origin}`, read.text) : read.text;
        return { row: await this.tasks.reply(target, reply), read, continued: true, extensions };
      } catch (error) {
        // It stopped waiting (another reply, a cancel) while this message waited its turn: refused as if it had arrived later.
        if (error instanceof TaskNotWaitingError) return { error: continuationRefusal(error.row, read.contextId)! };
        throw error;
      }
    }
    const row = await this.tasks.submit(
      { messageId: read.message.messageId, contextId: read.contextId, text: read.text, images: read.images, referenceTaskIds: read.referenceTaskIds, trust },
      call.caller,
    );
    return { row, read, continued: false, extensions };
  }
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
