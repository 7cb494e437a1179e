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
import { Inject, Injectable } from '@nestjs/common';
import { trustOf } from '../auth/message-trust.js';
import type { RpcCall } from '../rpc/rpc-context.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import type { TaskRow } from '../tasks/task.entity.js';
import { TaskLifecycle, TaskNotWaitingError } from '../tasks/task-lifecycle.js';
import { TaskQueue } from '../tasks/task-queue.js';
import { TaskStore } from '../tasks/task-store.js';
import { traceContextOf } from '../telemetry/trace-context.js';

export type Intake = { error: JsonRpcErrorObject } | { row: TaskRow; read: ReadMessage; continued: boolean; extensions: string[] };

/**
 * SendMessage and SendStreamingMessage alike: read the message in full (every refusal before anything starts),
 * then route it by taskId — a reply to a waiting task, or a new task (which may be rejected).
 */
@Injectable()
export class MessageIntake {
  constructor(
    @Inject(SESSION_CONTEXT) private readonly session: SessionContext,
    @Inject(TaskStore) private readonly store: TaskStore,
    @Inject(TaskQueue) private readonly queue: TaskQueue,
    @Inject(TaskLifecycle) private readonly lifecycle: TaskLifecycle,
  ) {}

  /** Once the message is stored (or refused), the request body's share of the intake budget is given back. */
  async take(call: RpcCall): Promise<Intake> {
    try {
      return await this.route(call);
    } finally {
      call.releaseBody?.();
    }
  }

  private async route(call: RpcCall): Promise<Intake> {
    const images = this.session.manifest.context.images;
    const transport = this.session.manifest.inference?.transport ?? 'http';
    const verdict = readMessageParams(call.params, { maxImageBytes: images.max_bytes, maxImagesPerTurn: images.max_per_turn, transport });
    if (!verdict.ok) return { error: verdict.error };
    const read = verdict.read;
    const trust = trustOf(call.lines);
    const extensions = read.usesDoorExtension ? [DOOR_EXTENSION_URI] : [];
    if (read.taskId !== null) {
      const target = await this.store.viewFor(call.caller).read(read.taskId);
      if (!target) return { error: taskNotFound(read.taskId) };
      const refusal = continuationRefusal(target, read.contextId);
      if (refusal) return { error: refusal };
      try {
        return { row: await this.lifecycle.reply(target, read.text, trust), read, continued: true, extensions };
      } catch (error) {
        // It stopped waiting (another reply, a cancel) while this message waited its turn: refused as if it had arrived later.
        if (error instanceof TaskNotWaitingError) return { error: continuationRefusal(error.row, read.contextId)! };
        throw error;
      }
    }
    const row = await this.queue.submit(
      {
        messageId: read.message.messageId,
        contextId: read.contextId,
        text: read.text,
        images: read.images,
        referenceTaskIds: read.referenceTaskIds,
        trust,
        traceContext: call.traceContext !== undefined ? call.traceContext : traceContextOf(call.lines),
        answeredAtOnce: read.returnImmediately,
        forgetSession: read.forgetSession ? 'a2a' : null,
      },
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
