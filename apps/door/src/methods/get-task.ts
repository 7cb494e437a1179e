import { Inject, Injectable } from '@nestjs/common';
import { METHOD, taskNotFound } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { TaskStore } from '../tasks/task-store.js';
import { wireTaskJson } from '../tasks/wire-task.js';
import { readTaskId } from './read-task-id.js';

/** GetTask: the task params.id names, as the caller sees it (seed 000, "GetTask"). */
@Injectable()
export class GetTaskMethod implements RpcMethod {
  readonly method = METHOD.GetTask;

  constructor(@Inject(TaskStore) private readonly store: TaskStore) {}

  /** A task the mirror holds (every live one, recently read ended ones), answered without a turn of the event loop. */
  answerNow(call: RpcCall): RpcAnswer | null {
    const read = readTaskId(this.method, call.params);
    if ('error' in read) return read;
    const row = this.store.row(read.id);
    if (row === undefined) return null;
    return this.store.viewFor(call.caller).sees(row) ? { resultJson: wireTaskJson(row) } : { error: taskNotFound(read.id) };
  }

  async handle(call: RpcCall): Promise<RpcAnswer> {
    const read = readTaskId(this.method, call.params);
    if ('error' in read) return read;
    const row = await this.store.viewFor(call.caller).read(read.id);
    return row ? { resultJson: wireTaskJson(row) } : { error: taskNotFound(read.id) };
  }
}
