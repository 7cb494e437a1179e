import { parseArgs } from 'node:util';
import { isStreamError } from '@murmur/client';
import { ARTIFACT_ID, type MurmurFrame, partsText, type ResidueItem, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '@murmur/protocol';
import {
  clientFor,
  type CommandIo,
  DoorFailure,
  inPlainWords,
  withUsage,
  residueLine,
  resolveTarget,
  statePiece,
  statusText,
  tokenFor,
} from './client-command-support.js';
import type { Line } from './terminal-lines.js';
import { UsageError } from './usage-error.js';

export const WATCH_USAGE = `usage: mur watch [SESSION|ADDR] [--token T] [--json]

Observes every task of a session (murmur.WatchSession) until the capsule closes: status lines, tool
results, the response, and the reply text as it streams. Replays the session's buffer on attach; does
not reconnect. Exits 0 on capsule-closed, 1 when the connection is lost. --json prints one JSON object
per line: {"event": "task"|"status"|"artifact"|"message"|"frame", "id", "taskId", "frame": <frame name
or null>, "result": <the A2A StreamResponse>} per event, then {"event": "lost", "lastEventId"} when the
connection is lost.`;

const pad = (n: number) => String(n).padStart(2, '0');

/** HH:MM:SS (local time) of an event's timestamp, or of now when it has none. */
function clock(timestamp: string | undefined): string {
  let at = timestamp === undefined ? new Date() : new Date(timestamp);
  if (Number.isNaN(at.getTime())) at = new Date();
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

/** Prints a watch stream as seed 001's "What `mur watch` implements" says. */
class WatchPrinter {
  /** Set by connection-ack: a threaded capsule's status lines name the context beside the task. */
  conversationMode: 'stateless' | 'threaded' = 'stateless';
  /** Reply text was written without its newline yet. */
  private midLine = false;

  constructor(private readonly io: CommandIo) {}

  private label(taskId: string, contextId: string | undefined): string {
    return this.conversationMode === 'threaded' && contextId ? `${taskId} in ${contextId}` : taskId;
  }

  private line(text: Line): void {
    this.endText();
    this.io.out(text);
  }

  private endText(): void {
    if (!this.midLine) return;
    this.io.write('\n');
    this.midLine = false;
  }

  warn(text: string): void {
    this.endText();
    this.io.err(text);
  }

  status(update: TaskStatusUpdateEvent): void {
    const message = statusText(update);
    const { taskId, contextId, status } = update;
    this.line([`${clock(status.timestamp)}  ${this.label(taskId, contextId)}  `, statePiece(status.state), message ? `  ${message}` : '']);
  }

  artifact(update: TaskArtifactUpdateEvent): void {
    const { artifact, taskId, contextId } = update;
    const prefix = `${clock(undefined)}  ${this.label(taskId, contextId)}`;
    if (artifact.artifactId === ARTIFACT_ID.residue) {
      for (const part of artifact.parts) if (part.data) this.line(`${prefix}  ${residueLine(part.data as unknown as ResidueItem)}`);
      return;
    }
    const text = partsText(artifact.parts);
    this.line(`${prefix}  ${artifact.artifactId === ARTIFACT_ID.response ? 'response' : `artifact ${artifact.artifactId}`}: ${text}`);
  }

  /** A frame of a task, riding a carrier status update (undefined for a frame with no task). */
  frame(frame: MurmurFrame, carrier: TaskStatusUpdateEvent | undefined): 'closed' | undefined {
    switch (frame.frame) {
      case 'connection-ack':
        this.conversationMode = frame.conversationMode === 'threaded' ? 'threaded' : 'stateless';
        return undefined;
      case 'text':
        if (frame.final) {
          // The end of a turn's chunks (""), or the whole reply of a task that streamed none.
          if (frame.text !== '') this.io.write(frame.text);
          if (frame.text !== '' || this.midLine) this.io.write('\n');
          this.midLine = false;
        } else if (frame.text !== '') {
          this.io.write(frame.text);
          this.midLine = !frame.text.endsWith('\n');
        }
        return undefined;
      case 'artifact': {
        const a = frame.artifact;
        const where = carrier ? `${clock(carrier.status.timestamp)}  ${this.label(carrier.taskId, carrier.contextId)}  ` : '';
        this.line(`${where}tool ${a.toolName} exit ${a.exitCode ?? '-'} (${a.durationMs ?? '-'} ms)`);
        return undefined;
      }
      case 'gap':
        this.warn(`mur: warning: events before id ${frame.firstAvailableId} are gone: the replay buffer starts at id ${frame.firstAvailableId}`);
        return undefined;
      case 'lagged':
        this.warn(`mur: warning: this connection fell behind and lost ${frame.dropped} events`);
        return undefined;
      case 'capsule-closed':
        this.warn('[murmur] capsule closed');
        return 'closed';
      default:
        // thinking is not shown; tool-call frames and frames this version does not know are ignored.
        return undefined;
    }
  }
}

/**
 * mur watch: a murmur.WatchSession client (seed 001, "What `mur watch` implements", on the v1.0 door). It sends no
 * Last-Event-ID: the v1.0 door then replays its whole buffer after connection-ack (docs/streaming.md, "Replay"),
 * where seed 001's stream/watch needed `Last-Event-ID: 0`. Ids are read only to say where a lost connection stopped;
 * it never reconnects, and it sets no heartbeat deadline (a silent capsule is busy, not gone).
 */
export async function watch(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsage(WATCH_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { token: { type: 'string' }, json: { type: 'boolean' } } }),
  );
  if (positionals.length > 1) throw new UsageError(`mur watch takes one session or address, not ${positionals.length}\n${WATCH_USAGE}`);
  const target = resolveTarget(positionals[0]);
  const client = clientFor(target.url, tokenFor(target.session, values.token), { reconnect: false, heartbeatTimeoutMs: 0 });
  const printer = new WatchPrinter(io);
  let opened = false;
  try {
    for await (const event of client.watchSession()) {
      if (event.kind === 'connection') {
        if (event.state === 'open') opened = true;
        continue;
      }
      if (values.json) {
        io.out(JSON.stringify({ event: event.kind, id: event.id, taskId: event.taskId, frame: event.frame?.frame ?? null, result: event.response }));
        if (event.kind === 'frame' && event.frame.frame === 'capsule-closed') return 0;
        continue;
      }
      if (event.kind === 'status') printer.status(event.response.statusUpdate);
      else if (event.kind === 'artifact') printer.artifact(event.response.artifactUpdate);
      else if (event.kind === 'frame') {
        const carrier = 'statusUpdate' in event.response ? event.response.statusUpdate : undefined;
        if (printer.frame(event.frame, carrier) === 'closed') return 0;
      }
    }
    // The client ends a WatchSession only after capsule-closed; reaching here means the same.
    return 0;
  } catch (error) {
    if (!opened) throw new DoorFailure(`cannot watch ${target.label}: ${inPlainWords(error, target)}`);
    if (isStreamError(error) && (error.reason === 'connection-lost' || error.reason === 'heartbeat-timeout')) {
      if (values.json) io.out(JSON.stringify({ event: 'lost', lastEventId: error.lastEventId }));
      const where = error.lastEventId === null ? 'lost before any event' : `lost after event id ${error.lastEventId}`;
      printer.warn(`mur: E-IO-003: connection to ${target.label} ${where}`);
      printer.warn('the capsule may still be running; run mur watch again to reattach');
      return 1;
    }
    throw new DoorFailure(`watching ${target.label} failed: ${inPlainWords(error, target)}`);
  }
}
