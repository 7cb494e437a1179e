import { Inject, Injectable } from '@nestjs/common';
import { METHOD, STREAM_EXTENSION_URI } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import type { StreamEvent } from '../streaming/stream-event.js';
import { StreamHub } from '../streaming/stream-hub.js';
import { toWireTask } from '../tasks/wire-task.js';
import { type Intake, MessageIntake } from './message-intake.js';
import { plainEvent, StreamConnections } from './stream-connections.js';
import { TaskStreamWriter } from './task-stream.js';

/** SendStreamingMessage: starts or continues a task and streams its events until it ends or pauses for input. */
@Injectable()
export class SendStreamingMessageMethod implements RpcMethod {
  readonly method = METHOD.SendStreamingMessage;

  constructor(
    @Inject(MessageIntake) private readonly intake: MessageIntake,
    @Inject(StreamHub) private readonly hub: StreamHub,
    @Inject(StreamConnections) private readonly streams: StreamConnections,
    @Inject(TaskStreamWriter) private readonly writer: TaskStreamWriter,
  ) {}

  async handle(call: RpcCall): Promise<RpcAnswer> {
    // Listen before the task exists, so that nothing it does before the stream opens is lost.
    const early: StreamEvent[] = [];
    const unsubscribe = this.hub.subscribe((event) => early.push(event));
    let taken: Intake;
    try {
      taken = await this.intake.take(call);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    if ('error' in taken || taken.row.state === 'TASK_STATE_REJECTED') unsubscribe();
    if ('error' in taken) return taken;
    const activated = this.streams.activated(call);
    const extensions = [...taken.extensions, ...(activated ? [STREAM_EXTENSION_URI] : [])];
    const { row } = taken;
    if (row.state === 'TASK_STATE_REJECTED') {
      // A stream of one TASK_STATE_REJECTED task event, id 0, never buffered.
      return {
        extensions,
        stream: (res) => {
          call.streamedTask?.({ taskId: row.id, state: row.state, contextId: row.contextId });
          const connection = this.streams.open(res, call, () => null);
          connection.writeNow([plainEvent(0n, row.id, false, { task: toWireTask(row) })]);
          connection.end();
        },
      };
    }
    return {
      extensions,
      stream: (res) => this.writer.write(res, { call, opening: row, activated, early, endsOnInputRequired: true, stopEarly: unsubscribe }),
    };
  }
}
