import { Inject, Injectable } from '@nestjs/common';
import { METHOD, TERMINAL_STATES, taskNotCancelable, taskNotFound } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { TaskQueue } from '../tasks/task-queue.js';
import { TaskStore } from '../tasks/task-store.js';
import { toWireTask } from '../tasks/wire-task.js';
import { readTaskId } from './read-task-id.js';

/** CancelTask: a live task the caller sees ends TASK_STATE_CANCELED; an ended one is left unchanged, -32002. */
@Injectable()
export class CancelTaskMethod implements RpcMethod {
  readonly method = METHOD.CancelTask;

  constructor(
    @Inject(TaskStore) private readonly store: TaskStore,
    @Inject(TaskQueue) private readonly queue: TaskQueue,
  ) {}

  async handle(call: RpcCall): Promise<RpcAnswer> {
    const read = readTaskId(this.method, call.params);
    if ('error' in read) return read;
    const row = await this.store.viewFor(call.caller).read(read.id);
    if (!row) return { error: taskNotFound(read.id) };
    if (TERMINAL_STATES.has(row.state)) return { error: taskNotCancelable(row.id, row.state) };
    const canceled = await this.queue.cancel(row.id);
    if (!canceled) {
      // It ended (another cancel, its own ending) while this request waited to write: left unchanged.
      const ended = (await this.store.read(row.id)) ?? row;
      return { error: taskNotCancelable(ended.id, ended.state) };
    }
    return { result: toWireTask(canceled) };
  }
}
