import { Inject, Injectable } from '@nestjs/common';
import { METHOD, STREAM_EXTENSION_URI, TERMINAL_STATES, taskNotFound, unsupportedForTask } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { TaskStore } from '../tasks/task-store.js';
import { readTaskId } from './read-task-id.js';
import { StreamConnections } from './stream-connections.js';
import { TaskStreamWriter } from './task-stream.js';

/** SubscribeToTask: the rest of one live task the caller sees, through TASK_STATE_INPUT_REQUIRED to its end. */
@Injectable()
export class SubscribeToTaskMethod implements RpcMethod {
  readonly method = METHOD.SubscribeToTask;

  constructor(
    @Inject(TaskStore) private readonly store: TaskStore,
    @Inject(StreamConnections) private readonly streams: StreamConnections,
    @Inject(TaskStreamWriter) private readonly writer: TaskStreamWriter,
  ) {}

  async handle(call: RpcCall): Promise<RpcAnswer> {
    const read = readTaskId(this.method, call.params);
    if ('error' in read) return read;
    const row = await this.store.viewFor(call.caller).read(read.id);
    if (!row) return { error: taskNotFound(read.id) };
    if (TERMINAL_STATES.has(row.state)) {
      return { error: unsupportedForTask(`Task ${row.id} has ended in ${row.state}; there is nothing left to stream`, row.id, row.state) };
    }
    const activated = this.streams.activated(call);
    return {
      extensions: activated ? [STREAM_EXTENSION_URI] : undefined,
      stream: (res) => this.writer.write(res, { call, opening: this.store.row(row.id) ?? row, activated, early: [], endsOnInputRequired: false }),
    };
  }
}
