import { Inject, Injectable } from '@nestjs/common';
import { DOOR_EXTENSION_URI, METHOD, STREAM_EXTENSION_URI } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { StreamHub } from '../streaming/stream-hub.js';
import { StreamConnections } from './stream-connections.js';

/** murmur.WatchSession: connection-ack, the replay, then every task's live events until the capsule closes. */
@Injectable()
export class WatchSessionMethod implements RpcMethod {
  readonly method = METHOD.WatchSession;

  constructor(
    @Inject(SESSION_CONTEXT) private readonly session: SessionContext,
    @Inject(StreamHub) private readonly hub: StreamHub,
    @Inject(StreamConnections) private readonly streams: StreamConnections,
  ) {}

  async handle(call: RpcCall): Promise<RpcAnswer> {
    return {
      extensions: [DOOR_EXTENSION_URI, STREAM_EXTENSION_URI],
      stream: (res) => {
        const { streams, hub } = this;
        const connection = streams.open(res, call, (dropped) => streams.messageFrame({ frame: 'lagged', dropped }));
        const ack = streams.messageFrame({ frame: 'connection-ack', role: 'observer', conversationMode: this.session.manifest.lifecycle.conversation });
        if (hub.isClosed) {
          connection.writeNow([ack, streams.messageFrame({ frame: 'capsule-closed' })]);
          connection.end();
          return;
        }
        // Subscribing and reading the replay in one tick: no event falls between them.
        const unsubscribe = hub.subscribe((event) => connection.send(event));
        const replay = hub.replay(streams.lastEventId(call));
        const gap = replay.gapFirstAvailableId === null ? [] : [streams.messageFrame({ frame: 'gap', firstAvailableId: String(replay.gapFirstAvailableId) })];
        connection.writeNow([ack, ...gap, ...replay.events]);
        const offClose = hub.onClose(() => {
          connection.send(streams.messageFrame({ frame: 'capsule-closed' }));
          connection.end();
        });
        connection.onClose(() => {
          unsubscribe();
          offClose();
        });
      },
    };
  }
}
