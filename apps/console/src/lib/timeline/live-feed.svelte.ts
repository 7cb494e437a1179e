/**
 * One live stream (murmur.WatchSession or SubscribeToTask) feeding a TimelineStore, with the connection state an
 * operator sees: the client's connection events (docs: packages/client README, "Streams") become live,
 * reconnecting or lost.
 */
import type { ConnectionEvent, MurmurStreamEvent, StreamDataEvent } from '@murmur/client';
import { describeError, type ErrorContext, isAbort, type Problem } from '../io/errors.js';
import { ReplayFilter } from './replay-filter.js';
import type { TimelineStore } from './timeline.svelte.js';

/**
 * `connecting` before the first answer; `closed` after the stream's natural end (the capsule closed, the task ended);
 * `needs-token` when the door refused it 401 — the door is up and answering, so not `lost`: a token, not a
 * reconnect, is what opens it (the token prompt says so).
 */
export type LinkState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'lost' | 'needs-token' | 'closed';

export type OpenStream = (signal: AbortSignal) => AsyncIterable<MurmurStreamEvent>;

export interface LiveFeedOptions {
  timeline: TimelineStore;
  context?: ErrorContext;
  /** Every data event, as it arrives (before batching): keep it cheap. */
  onEvent?: (event: StreamDataEvent) => void;
  /** The stream failed or ended; a token problem is the caller's to prompt for. */
  onProblem?: (problem: Problem) => void;
  /** The stream reached its natural end. */
  onEnd?: () => void;
  /** A refusal that means there is nothing more to stream (SubscribeToTask on an ended task): `closed`, not `lost`. */
  isEnd?: (problem: Problem) => boolean;
}

export class LiveFeed {
  #state = $state<LinkState>('idle');
  #detail = $state<string | null>(null);
  #problem = $state.raw<Problem | null>(null);
  readonly timeline: TimelineStore;
  readonly #open: OpenStream;
  readonly #options: LiveFeedOptions;
  #abort: AbortController | null = null;
  #run = 0;
  /** What a Reconnect's replay would repeat. */
  readonly #replay = new ReplayFilter();
  #shownAny = false;
  /** When the stream stopped being live (ms), for the gap note a Reconnect leaves. */
  #lostAt: number | null = null;

  constructor(open: OpenStream, options: LiveFeedOptions) {
    this.#open = open;
    this.#options = options;
    this.timeline = options.timeline;
  }

  get state(): LinkState {
    return this.#state;
  }

  /** A short line about the state: the retry and its delay while reconnecting. */
  get detail(): string | null {
    return this.#detail;
  }

  get problem(): Problem | null {
    return this.#problem;
  }

  /** Opens a fresh stream (closing one already open). Resolves when it ends. */
  start(): Promise<void> {
    this.#replay.clear();
    this.#shownAny = false;
    this.#lostAt = null;
    // A new stream starts without Last-Event-ID, so the door replays its whole buffer: start from a clean slate.
    this.timeline.reset();
    return this.#connect();
  }

  /**
   * The operator's Reconnect after the stream was lost or closed: keeps what the timeline shows, drops what the door's
   * replay repeats of it (replay-filter.ts) and marks the gap, since events the buffer no longer holds were missed.
   */
  reconnect(): Promise<void> {
    if (!this.#shownAny) return this.start();
    const since = this.#lostAt === null ? '' : ` since ${new Date(this.#lostAt).toLocaleTimeString()}`;
    this.timeline.markGap(
      `Reconnected: the stream was not live${since}. What the door still held was replayed without repeats; older events may be missing here.`,
    );
    this.#replay.expectReplay();
    return this.#connect();
  }

  #connect(): Promise<void> {
    this.stop();
    const abort = new AbortController();
    this.#abort = abort;
    const run = ++this.#run;
    this.#state = 'connecting';
    this.#detail = null;
    this.#problem = null;
    return this.#consume(abort.signal, run);
  }

  stop(): void {
    this.#abort?.abort(new DOMException('the console closed the stream', 'AbortError'));
    this.#abort = null;
  }

  /** The capsule is known to be gone: stop reconnecting and say why, keeping what the timeline shows. */
  markGone(why: string): void {
    this.stop();
    this.#run += 1;
    this.#state = 'lost';
    this.#detail = why;
    this.#lostAt ??= Date.now();
  }

  async #consume(signal: AbortSignal, run: number): Promise<void> {
    const current = () => run === this.#run && !signal.aborted;
    try {
      for await (const event of this.#open(signal)) {
        if (!current()) return;
        if (event.kind === 'connection') {
          this.#connection(event);
          continue;
        }
        if (this.#replay.isRepeat(event)) continue;
        this.#shownAny = true;
        this.timeline.push(event);
        this.#options.onEvent?.(event);
      }
      if (!current()) return;
      this.#state = 'closed';
      this.#lostAt ??= Date.now();
      this.#options.onEnd?.();
    } catch (error) {
      if (!current() || isAbort(error)) return;
      const problem = describeError(error, this.#options.context);
      if (this.#options.isEnd?.(problem)) {
        this.#state = 'closed';
        this.#detail = null;
        this.#options.onEnd?.();
        return;
      }
      this.#state = problem.needsToken ? 'needs-token' : 'lost';
      this.#lostAt ??= Date.now();
      this.#problem = problem;
      this.#options.onProblem?.(problem);
    } finally {
      if (run === this.#run) this.#abort = null;
    }
  }

  #connection(event: ConnectionEvent): void {
    switch (event.state) {
      case 'open':
        this.#lostAt = null;
        this.#state = 'live';
        this.#detail = event.attempt > 0 ? `reconnected (attempt ${event.attempt})` : null;
        this.#problem = null;
        return;
      case 'reconnecting': {
        this.#lostAt ??= Date.now();
        this.#state = 'reconnecting';
        const why =
          event.reason === 'heartbeat-timeout' ? 'no heartbeat' : event.reason === 'consumer-behind' ? 'the page fell behind' : 'the connection dropped';
        const wait = event.delayMs === undefined ? '' : ` in ${(event.delayMs / 1000).toFixed(1)} s`;
        this.#detail = `${why}; retry ${event.attempt}${wait}`;
        return;
      }
      case 'lost':
        this.#state = 'lost';
        this.#detail = null;
        return;
      case 'closed':
        this.#state = 'closed';
        this.#detail = null;
        return;
      default: {
        const unreachable: never = event.state;
        throw new TypeError(`unknown connection state ${String(unreachable)}`);
      }
    }
  }
}
