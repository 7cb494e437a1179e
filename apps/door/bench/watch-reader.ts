/**
 * murmur.WatchSession readers for the streaming measurements: each a real HTTP connection of its own reading the
 * door's SSE, and following one task — the first whose SUBMITTED status arrives after the connection-ack — until its
 * terminal status. They count rather than keep: the load generator shares the CPUs with the door, so on the hot path
 * a reader only finds event boundaries, reads the `id:` digits and checks that ids follow (docs/streaming.md,
 * "Event ids": the same id or the next, past any `lagged` frame's dropped count). Only events without an id (the
 * ack, SUBMITTED, `lagged`, `gap`, `capsule-closed`, all rare) and the one holding "TASK_STATE_COMPLETED" are decoded
 * and JSON-parsed.
 *
 * Two ways to read the wire `id: N\ndata: {...}\n\n`: `lean`, a byte scanner over the socket's Buffers, and `parser`,
 * eventsource-parser over decoded text (what the client SDK uses; slower, for comparison).
 */
import http from 'node:http';
import { METHOD, STREAM_EXTENSION_URI } from '@murmur/protocol';
import { createParser } from 'eventsource-parser';
import { RPC_HEADERS, rpcBody } from './rpc-client.js';

const COMPLETED = '"TASK_STATE_COMPLETED"';
const COMPLETED_BYTES = Buffer.from(COMPLETED);
const EVENT_END = Buffer.from('\n\n');
const CHAR_I = 0x69;
const CHAR_D = 0x64;
const CHAR_COLON = 0x3a;
const CHAR_LF = 0x0a;
/** Above this many digits an id may not fit a double exactly; the bench's tasks never get there. */
const MAX_EXACT_DIGITS = 15;

interface PlainResult {
  message?: { metadata?: Record<string, { frame?: string; dropped?: number }> };
  statusUpdate?: { taskId?: string; status?: { state?: string } };
}

/** What one reader saw of the task it followed: counts and the two instants that matter, nothing kept. */
class TaskTally {
  acked = false;
  taskId: string | null = null;
  /** The task's events received, SUBMITTED through the terminal status; `lagged` frames are not counted. */
  events = 0;
  laggedFrames = 0;
  /** The sum of the `lagged` frames' `dropped`. */
  dropped = 0;
  /** Ids that neither repeated the previous one nor followed it (past a `lagged` frame's dropped count). */
  idBreaks = 0;
  firstId: number | null = null;
  lastId = -1;
  /** Events without an id while following that are neither the task's SUBMITTED nor `lagged`. */
  others = 0;
  /** Events the scanner did not recognise as `id:`, `data:` or a comment. */
  malformed = 0;
  /** Bytes received on the connection, and those of the task's events after its SUBMITTED. */
  bytes = 0;
  taskBytes = 0;
  /** performance.now() when the SUBMITTED status arrived, and when the terminal status did. */
  startedAt = 0;
  endedAt = 0;
  terminalState: string | null = null;
  readonly acknowledged: Promise<void>;
  readonly finished: Promise<void>;
  private skip = 0;
  private onAck!: () => void;
  private onFinish!: () => void;

  constructor() {
    this.acknowledged = new Promise((resolve) => {
      this.onAck = resolve;
    });
    this.finished = new Promise((resolve) => {
      this.onFinish = resolve;
    });
  }

  get following(): boolean {
    return this.taskId !== null && this.terminalState === null;
  }

  /** An event with an id; `data` only when it may be the terminal status (it holds "TASK_STATE_COMPLETED"). */
  onId(id: number, data: string | null): void {
    if (!this.following) return;
    this.events += 1;
    if (this.firstId === null) this.firstId = id;
    if (!(id === this.lastId + 1 + this.skip || (id === this.lastId && this.skip === 0))) this.idBreaks += 1;
    this.lastId = id;
    this.skip = 0;
    if (data !== null) {
      const result = (JSON.parse(data) as { result: PlainResult }).result;
      if (result.statusUpdate?.taskId === this.taskId && result.statusUpdate.status?.state === 'TASK_STATE_COMPLETED' && !('metadata' in result.statusUpdate)) {
        this.endedAt = performance.now();
        this.terminalState = 'TASK_STATE_COMPLETED';
        this.onFinish();
      }
    }
  }

  /** An event without an id, as its data line's JSON. */
  onPlain(data: string): void {
    const result = (JSON.parse(data) as { result: PlainResult }).result;
    const frame = result.message?.metadata?.[STREAM_EXTENSION_URI];
    if (!this.acked) {
      if (frame?.frame === 'connection-ack') {
        this.acked = true;
        this.onAck();
      } else this.malformed += 1;
      return;
    }
    if (this.taskId === null) {
      // Replayed events come before it; the first SUBMITTED after the ack is the task followed.
      if (result.statusUpdate?.status?.state === 'TASK_STATE_SUBMITTED' && typeof result.statusUpdate.taskId === 'string') {
        this.taskId = result.statusUpdate.taskId;
        this.startedAt = performance.now();
        this.events = 1;
      }
      return;
    }
    if (!this.following) return;
    if (frame?.frame === 'lagged') {
      this.laggedFrames += 1;
      this.dropped += frame.dropped ?? 0;
      this.skip += frame.dropped ?? 0;
    } else {
      this.others += 1;
      this.events += 1;
    }
  }
}

/** The byte scanner: complete events end with a blank line; a partial one waits for the next chunk. */
function leanFeeder(tally: TaskTally): (chunk: Buffer) => void {
  let carry: Buffer | null = null;
  return (chunk) => {
    tally.bytes += chunk.length;
    const buf = carry === null ? chunk : Buffer.concat([carry, chunk]);
    carry = null;
    let pos = 0;
    let completedAt = buf.indexOf(COMPLETED_BYTES, pos);
    for (;;) {
      const end = buf.indexOf(EVENT_END, pos);
      if (end === -1) break;
      const first = buf[pos];
      if (tally.following) tally.taskBytes += end + 2 - pos;
      if (first === CHAR_I) {
        // "id: N\ndata: {...}"
        let p = pos + 4;
        let id = 0;
        while (p < end && buf[p] !== CHAR_LF) id = id * 10 + buf[p++] - 48;
        const exact = p - (pos + 4) <= MAX_EXACT_DIGITS;
        const mayEnd = completedAt !== -1 && completedAt < end;
        tally.onId(exact ? id : Number.NaN, mayEnd ? buf.toString('utf8', p + 7, end) : null);
      } else if (first === CHAR_D) tally.onPlain(buf.toString('utf8', pos + 6, end));
      else if (first !== CHAR_COLON) tally.malformed += 1;
      pos = end + 2;
      if (completedAt !== -1 && completedAt < pos) completedAt = buf.indexOf(COMPLETED_BYTES, pos);
    }
    if (pos < buf.length) carry = Buffer.from(buf.subarray(pos));
  };
}

/** An event as the audit reader keeps it: its id line and its whole data line, parsed. */
interface KeptEvent {
  id: string | undefined;
  data: { id?: unknown; result?: Record<string, { taskId?: string; status?: { state?: string } } | undefined> };
}

/** eventsource-parser over the decoded body, as the client SDK reads streams; `kept` also parses and keeps every event. */
function parserFeeder(tally: TaskTally, kept: KeptEvent[] | null): (chunk: Buffer) => void {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (event) => {
      if (tally.following) {
        // The wire bytes of the event as the door writes it (ASCII JSON): `id: N\n` when it has an id, `data: …\n\n`.
        tally.taskBytes += (event.id === undefined ? 0 : 5 + event.id.length) + 8 + event.data.length;
        if (kept) kept.push({ id: event.id, data: JSON.parse(event.data) as KeptEvent['data'] });
      }
      if (event.id === undefined) tally.onPlain(event.data);
      else tally.onId(event.id.length <= MAX_EXACT_DIGITS ? Number(event.id) : Number.NaN, event.data.includes(COMPLETED) ? event.data : null);
    },
  });
  return (chunk) => {
    tally.bytes += chunk.length;
    parser.feed(decoder.decode(chunk, { stream: true }));
  };
}

/** `audit` is `parser` that also parses and keeps every event of the task, to count them independently of the tally. */
export type ReaderKind = 'lean' | 'parser' | 'audit';

export interface WatchReader {
  tally: TaskTally;
  /** Every event of the followed task from the one after SUBMITTED on, parsed (`audit` readers only). */
  kept: KeptEvent[] | null;
  /** Stops reading: the socket backs up, then the door's. */
  pause(): void;
  resume(): void;
  close(): void;
  /** Set when the connection failed or ended before the task did. */
  readonly error: Error | null;
}

let nextRpcId = 1;
const ACK_TIMEOUT_MS = 15_000;

/** Opens a WatchSession; resolves once the connection-ack has been read. */
export async function openWatchReader(url: string, kind: ReaderKind = 'lean'): Promise<WatchReader> {
  const tally = new TaskTally();
  const kept: KeptEvent[] | null = kind === 'audit' ? [] : null;
  const feed = kind === 'lean' ? leanFeeder(tally) : parserFeeder(tally, kept);
  const body = rpcBody(METHOD.WatchSession, {}, nextRpcId++);
  let response: http.IncomingMessage | null = null;
  let error: Error | null = null;
  const request = http.request(`${url}/`, { method: 'POST', agent: false, headers: { ...RPC_HEADERS, 'content-length': Buffer.byteLength(body) } });
  const failed = new Promise<never>((_, reject) => {
    const fail = (e: Error) => {
      if (tally.terminalState === null && error === null) error = e;
      reject(e);
    };
    request.on('error', fail);
    request.on('response', (res) => {
      response = res;
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
        fail(new Error(`WatchSession answered HTTP ${res.statusCode} (${type})`));
        res.resume();
        return;
      }
      res.on('data', feed);
      res.on('error', fail);
      res.on('end', () => fail(new Error('the WatchSession stream ended')));
    });
  });
  failed.catch(() => undefined);
  request.end(body);
  let timer: NodeJS.Timeout | undefined;
  const noAck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no connection-ack within ${ACK_TIMEOUT_MS} ms`)), ACK_TIMEOUT_MS);
  });
  try {
    await Promise.race([tally.acknowledged, failed, noAck]);
  } catch (e) {
    request.destroy();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return {
    tally,
    kept,
    pause: () => response?.pause(),
    resume: () => response?.resume(),
    close: () => {
      response?.destroy();
      request.destroy();
    },
    get error() {
      return error;
    },
  };
}

/** Opens `count` readers, `concurrency` at a time. */
export async function openWatchReaders(url: string, count: number, kind: ReaderKind = 'lean', concurrency = 50): Promise<WatchReader[]> {
  const readers: WatchReader[] = [];
  try {
    for (let i = 0; i < count; i += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, count - i) }, () => openWatchReader(url, kind));
      readers.push(...(await Promise.all(batch)));
    }
  } catch (error) {
    for (const reader of readers) reader.close();
    throw error;
  }
  return readers;
}

/** Resolves when every reader has its task's terminal status; rejects after `timeoutMs` or on a failed connection. */
export async function allFinished(readers: WatchReader[], timeoutMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const waiting = readers.filter((r) => r.tally.terminalState === null);
      const sample = waiting[0]?.tally;
      const errors = readers.map((r) => r.error?.message).filter(Boolean);
      reject(
        new Error(
          `${what}: ${waiting.length} of ${readers.length} readers did not see the task end within ${timeoutMs} ms` +
            (sample ? ` (one had ${sample.events} events, last id ${sample.lastId}, ${sample.laggedFrames} lagged frames)` : '') +
            (errors.length > 0 ? `; errors: ${errors[0]}` : ''),
        ),
      );
    }, timeoutMs);
  });
  try {
    await Promise.race([Promise.all(readers.map((r) => r.tally.finished)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
