import type { ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { endsTaskStream, type MurmurFrame, TERMINAL_STATES } from '@murmur/protocol';
import type { RpcCall } from '../rpc/rpc-context.js';
import type { StreamEvent } from '../streaming/stream-event.js';
import { StreamHub } from '../streaming/stream-hub.js';
import type { TaskRow } from '../tasks/task.entity.js';
import { toWireTask } from '../tasks/wire-task.js';
import { plainEvent, StreamConnections } from './stream-connections.js';

export interface TaskStreamPlan {
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

/**
 * One task's stream, as SendStreamingMessage and SubscribeToTask write it: the task as it stands, the replay from
 * Last-Event-ID, the events that came before the stream opened, then the live events until the stream ends.
 */
@Injectable()
export class TaskStreamWriter {
  constructor(
    @Inject(StreamHub) private readonly hub: StreamHub,
    @Inject(StreamConnections) private readonly streams: StreamConnections,
  ) {}

  write(res: ServerResponse, plan: TaskStreamPlan): void {
    const { call, opening, activated } = plan;
    const { hub, streams } = this;
    const taskId = opening.id;
    const carrierEvent = (frame: MurmurFrame): StreamEvent | null => {
      const carrier = activated ? hub.carrier(taskId, frame) : null;
      return carrier ? plainEvent(null, taskId, true, carrier) : null;
    };
    const connection = streams.open(res, call, (dropped) => carrierEvent({ frame: 'lagged', dropped }));
    // With telemetry on, the request's server span keeps the task and the last state the stream wrote.
    const observed = call.streamedTask;
    const sent =
      observed === undefined
        ? (event: StreamEvent) => connection.send(event)
        : (event: StreamEvent) => {
            connection.send(event);
            if (event.state !== null) observed({ taskId, state: event.state });
          };
    observed?.({ taskId, state: opening.state, contextId: opening.contextId });
    const follows = (event: StreamEvent) => event.taskId === taskId && (activated || !event.murmur);
    // Live and early events the opening task already reports (its own stored change, or an earlier one) are skipped.
    const takes = (event: StreamEvent) => follows(event) && !(event.change !== null && event.change <= opening.change);
    const ends = (event: StreamEvent) => event.state !== null && endsTaskStream(event.state, { endsOnInputRequired: plan.endsOnInputRequired });

    const first: StreamEvent[] = [plainEvent(null, taskId, false, { task: toWireTask(opening) })];
    const from = streams.lastEventId(call);
    // A replay writes the task's buffered events after Last-Event-ID, even those the opening task already reflects,
    // with a gap only when some of the task's own events are gone (docs/streaming.md, "Replay"); an early event that
    // the replay wrote is not written again.
    const replayed = new Set<StreamEvent>();
    if (from !== null) {
      const replay = hub.replayTask(taskId, from);
      const gap = replay.gapFirstAvailableId === null ? null : carrierEvent({ frame: 'gap', firstAvailableId: String(replay.gapFirstAvailableId) });
      if (gap) first.push(gap);
      for (const event of replay.events.filter(follows)) replayed.add(event);
      first.push(...replayed);
    }
    // Live events are taken from here on; the early ones (those before this tick) are written with the opening.
    const unsubscribe = hub.subscribe((event) => {
      if (!takes(event)) return;
      sent(event);
      if (ends(event)) connection.end();
    });
    plan.stopEarly?.();
    const early = plan.early.filter(takes);
    first.push(...early.filter((event) => !replayed.has(event)));
    connection.writeNow(first);
    if (observed) for (const event of first) if (event.state !== null) observed({ taskId, state: event.state });
    if (TERMINAL_STATES.has(opening.state) || early.some(ends) || hub.isClosed) {
      unsubscribe();
      connection.end();
      return;
    }
    const offClose = hub.onClose(() => connection.end());
    connection.onClose(() => {
      unsubscribe();
      offClose();
    });
  }
}
