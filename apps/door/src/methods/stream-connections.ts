import type { ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { extensionsHeaderNames, frameMessageEvent, type MurmurFrame, parseLastEventId, STREAM_EXTENSION_URI, type StreamResponse } from '@murmur/protocol';
import type { RpcCall } from '../rpc/rpc-context.js';
import { DoorLog } from '../session/door-log.js';
import { newId } from '../common/ids.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SseConnection } from '../streaming/sse-connection.js';
import { StalledReaders } from '../streaming/stalled-readers.js';
import type { StreamEvent } from '../streaming/stream-event.js';

/** An event written to one connection only: no id unless given, never in the replay buffer. */
export function plainEvent(id: bigint | null, taskId: string | null, murmur: boolean, result: StreamResponse): StreamEvent {
  return { id, taskId, murmur, result: JSON.stringify(result), change: null, state: null };
}

/** What the three streaming methods share: opening an SSE connection, and reading the stream headers of a call. */
@Injectable()
export class StreamConnections {
  /** Open SSE connections. Not the hub's listener count: a SendStreamingMessage also listens before its stream opens. */
  private openStreams = 0;

  constructor(
    @Inject(SESSION_CONTEXT) private readonly session: SessionContext,
    @Inject(DoorLog) private readonly log: DoorLog,
    @Inject(StalledReaders) private readonly stalled: StalledReaders,
  ) {}

  open(res: ServerResponse, call: RpcCall, lagged: (dropped: number) => StreamEvent | null): SseConnection {
    const connection = new SseConnection(res, call.id, { heartbeatMs: this.session.heartbeatMs, lagged, stalled: this.stalled });
    this.openStreams += 1;
    this.log.info('stream opened', { method: call.method, open_streams: this.openStreams });
    connection.onClose(() => {
      this.openStreams -= 1;
      this.log.info('stream closed', { method: call.method, open_streams: this.openStreams });
    });
    return connection;
  }

  lastEventId(call: RpcCall): bigint | null {
    return parseLastEventId(call.lines.lastEventId[0]);
  }

  /** Whether the request's A2A-Extensions names the stream extension (seed 000, "Activation"). */
  activated(call: RpcCall): boolean {
    return extensionsHeaderNames(call.lines.a2aExtensions, STREAM_EXTENSION_URI);
  }

  /** A frame with no task (connection-ack, gap, lagged, capsule-closed) as a message event. */
  messageFrame(frame: MurmurFrame): StreamEvent {
    return plainEvent(null, null, true, frameMessageEvent(newId('message'), frame));
  }
}
