import type { ServerResponse } from 'node:http';
import {
  DOOR_EXTENSION_URI,
  extensionsHeaderNames,
  frameMessageEvent,
  type MurmurFrame,
  parseLastEventId,
  STREAM_EXTENSION_URI,
  type StreamResponse,
  TERMINAL_STATES,
  taskNotFound,
  unsupportedForTask,
} from '@murmur/protocol';
import type { MessageIntake } from './message-intake.js';
import { readTaskId } from './task-methods.js';
import type { DoorLog } from '../session/door-log.js';
import { headerLines, type RpcAnswer, type RpcCall } from '../rpc/rpc-context.js';
import { newId } from '../session/ids.js';
import type { SessionContext } from '../session/session-context.js';
import type { TaskRow } from '../tasks/task.entity.js';
import type { TaskStore } from '../tasks/task-store.js';
import { toWireTask } from '../tasks/task-view.js';
import { SseConnection } from '../streaming/sse-connection.js';
import type { StreamEvent } from '../streaming/stream-event.js';
import type { StreamHub } from '../streaming/stream-hub.js';

const plain = (id: bigint | null, taskId: string | null, murmur: boolean, result: StreamResponse): StreamEvent => ({
  id,
  taskId,
  murmur,
  result: JSON.stringify(result),
  change: null,
  state: null,
});

interface TaskStreamPlan {
  call: RpcCall;
  opening: TaskRow;
  activated: boolean;
  /** Events of the task that arrived before the stream opened. */
  early: StreamEvent[];
  /** SendStreamingMessage also ends when its task pauses for input; SubscribeToTask stays open through it. */
  endsOnInputRequired: boolean;
  /** Stops collecting early events, once the live subscription has taken over. */
  stopEarly?: () => void;
}

/** SendStreamingMessage, SubscribeToTask and murmur.WatchSession (seed 000; frames and ids of seed 001). */
export class StreamMethods {
  constructor(
    private readonly session: SessionContext,
    private readonly store: TaskStore,
    private readonly hub: StreamHub,
    private readonly intake: MessageIntake,
    private readonly log: DoorLog,
  ) {}

  private lastEventId(call: RpcCall): bigint | null {
    return parseLastEventId(headerLines(call.rawHeaders, 'last-event-id')[0]);
  }

  private activated(call: RpcCall): boolean {
    return extensionsHeaderNames(headerLines(call.rawHeaders, 'a2a-extensions'), STREAM_EXTENSION_URI);
  }

  /** Open SSE connections. Not the hub's listener count: a SendStreamingMessage also listens before its stream opens. */
  private openStreams = 0;

  private open(res: ServerResponse, call: RpcCall, lagged: (dropped: number) => StreamEvent | null): SseConnection {
    const connection = new SseConnection(res, call.id, { heartbeatMs: this.session.heartbeatMs, lagged });
    this.openStreams += 1;
    this.log.info('stream opened', { method: call.method, open_streams: this.openStreams });
    connection.onClose(() => {
      this.openStreams -= 1;
      this.log.info('stream closed', { method: call.method, open_streams: this.openStreams });
    });
    return connection;
  }

  private messageFrame(frame: MurmurFrame): StreamEvent {
    return plain(null, null, true, frameMessageEvent(newId('message'), frame));
  }

  readonly watchSession = async (call: RpcCall): Promise<RpcAnswer> => ({
    extensions: [DOOR_EXTENSION_URI, STREAM_EXTENSION_URI],
    stream: (res) => {
      const connection = this.open(res, call, (dropped) => this.messageFrame({ frame: 'lagged', dropped }));
      const ack = this.messageFrame({ frame: 'connection-ack', role: 'observer', conversationMode: this.session.manifest.lifecycle.conversation });
      if (this.hub.isClosed) {
        connection.writeNow([ack, this.messageFrame({ frame: 'capsule-closed' })]);
        connection.end();
        return;
      }
      // Subscribing and reading the replay in one tick: no event falls between them.
      const unsubscribe = this.hub.subscribe((event) => connection.send(event));
      const replay = this.hub.replay(this.lastEventId(call));
      const gap = replay.gapFirstAvailableId === null ? [] : [this.messageFrame({ frame: 'gap', firstAvailableId: String(replay.gapFirstAvailableId) })];
      connection.writeNow([ack, ...gap, ...replay.events]);
      const offClose = this.hub.onClose(() => {
        connection.send(this.messageFrame({ frame: 'capsule-closed' }));
        connection.end();
      });
      connection.onClose(() => {
        unsubscribe();
        offClose();
      });
    },
  });

  readonly subscribeToTask = async (call: RpcCall): Promise<RpcAnswer> => {
    const read = readTaskId('SubscribeToTask', call.params);
    if ('error' in read) return read;
    const row = this.store.viewFor(call.caller).get(read.id);
    if (!row) return { error: taskNotFound(read.id) };
    if (TERMINAL_STATES.has(row.state)) {
      return { error: unsupportedForTask(`Task ${row.id} has ended in ${row.state}; there is nothing left to stream`, row.id, row.state) };
    }
    const activated = this.activated(call);
    return {
      extensions: activated ? [STREAM_EXTENSION_URI] : undefined,
      stream: (res) => this.taskStream(res, { call, opening: this.store.row(row.id) ?? row, activated, early: [], endsOnInputRequired: false }),
    };
  };

  readonly sendStreamingMessage = async (call: RpcCall): Promise<RpcAnswer> => {
    // Listen before the task exists, so that nothing it does before the stream opens is lost.
    const early: StreamEvent[] = [];
    const unsubscribe = this.hub.subscribe((event) => early.push(event));
    let taken: Awaited<ReturnType<MessageIntake['take']>>;
    try {
      taken = await this.intake.take(call);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    if ('error' in taken || taken.row.state === 'TASK_STATE_REJECTED') unsubscribe();
    if ('error' in taken) return taken;
    const activated = this.activated(call);
    const extensions = [...taken.extensions, ...(activated ? [STREAM_EXTENSION_URI] : [])];
    const { row } = taken;
    if (row.state === 'TASK_STATE_REJECTED') {
      // A stream of one TASK_STATE_REJECTED task event, id 0, never buffered.
      return {
        extensions,
        stream: (res) => {
          const connection = this.open(res, call, () => null);
          connection.writeNow([plain(0n, row.id, false, { task: toWireTask(row) })]);
          connection.end();
        },
      };
    }
    return {
      extensions,
      stream: (res) =>
        this.taskStream(res, { call, opening: row, activated, early, endsOnInputRequired: true, stopEarly: unsubscribe }),
    };
  };

  private taskStream(res: ServerResponse, plan: TaskStreamPlan): void {
    const { call, opening, activated } = plan;
    const taskId = opening.id;
    const carrierEvent = (frame: MurmurFrame): StreamEvent | null => {
      const carrier = activated ? this.hub.carrier(taskId, frame) : null;
      return carrier ? plain(null, taskId, true, carrier) : null;
    };
    const connection = this.open(res, call, (dropped) => carrierEvent({ frame: 'lagged', dropped }));
    const follows = (event: StreamEvent) => event.taskId === taskId && (activated || !event.murmur);
    // Live and early events the opening task already reports (its own stored change, or an earlier one) are skipped.
    const takes = (event: StreamEvent) => follows(event) && !(event.change !== null && event.change <= opening.change);
    const ends = (event: StreamEvent) =>
      event.state !== null && (TERMINAL_STATES.has(event.state) || (plan.endsOnInputRequired && event.state === 'TASK_STATE_INPUT_REQUIRED'));

    const first: StreamEvent[] = [plain(null, taskId, false, { task: toWireTask(opening) })];
    const from = this.lastEventId(call);
    // A replay writes every buffered event of the task whose id is above Last-Event-ID, even those the opening task
    // already reflects (docs/streaming.md, "Replay"); an early event that the replay wrote is not written again.
    const replayed = new Set<StreamEvent>();
    if (from !== null) {
      const replay = this.hub.replay(from);
      const gap = replay.gapFirstAvailableId === null ? null : carrierEvent({ frame: 'gap', firstAvailableId: String(replay.gapFirstAvailableId) });
      if (gap) first.push(gap);
      for (const event of replay.events.filter(follows)) replayed.add(event);
      first.push(...replayed);
    }
    // Live events are taken from here on; the early ones (those before this tick) are written with the opening.
    const unsubscribe = this.hub.subscribe((event) => {
      if (!takes(event)) return;
      connection.send(event);
      if (ends(event)) connection.end();
    });
    plan.stopEarly?.();
    const early = plan.early.filter(takes);
    first.push(...early.filter((event) => !replayed.has(event)));
    connection.writeNow(first);
    if (TERMINAL_STATES.has(opening.state) || early.some(ends) || this.hub.isClosed) {
      unsubscribe();
      connection.end();
      return;
    }
    const offClose = this.hub.onClose(() => connection.end());
    connection.onClose(() => {
      unsubscribe();
      offClose();
    });
  }
}
