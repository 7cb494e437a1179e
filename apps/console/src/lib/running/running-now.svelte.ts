/**
 * The running-now page's one stream (docs/console.md, "Running now"): mur console watches every door and sends the
 * page a snapshot whenever one changed, over one EventSource (which reconnects by itself), whatever the number of
 * doors. Ask again is one POST for one door.
 */
import { CONSOLE_RUNNING_DOORS_PREFIX, CONSOLE_RUNNING_STREAM_PATH, type ConsoleRunningSnapshot } from '@murmur/protocol';
import { consoleFetch } from '../io/console-api.js';

export type RunningLink = 'connecting' | 'live' | 'reconnecting';

type SourceFactory = (url: string) => EventSource;

export class RunningNowFeed {
  #snapshot = $state.raw<ConsoleRunningSnapshot | null>(null);
  #link = $state<RunningLink>('connecting');
  #askProblem = $state<string | null>(null);
  #source: EventSource | null = null;
  readonly #open: SourceFactory;

  constructor(options: { open?: SourceFactory } = {}) {
    this.#open = options.open ?? ((url) => new EventSource(url));
  }

  /** null until the first snapshot. */
  get snapshot(): ConsoleRunningSnapshot | null {
    return this.#snapshot;
  }

  get link(): RunningLink {
    return this.#link;
  }

  /** The last Ask again that failed, in words. */
  get askProblem(): string | null {
    return this.#askProblem;
  }

  start(): void {
    this.stop();
    const source = this.#open(CONSOLE_RUNNING_STREAM_PATH);
    this.#source = source;
    source.onopen = () => {
      this.#link = 'live';
    };
    source.onmessage = (event: MessageEvent<string>) => {
      try {
        this.#snapshot = JSON.parse(event.data) as ConsoleRunningSnapshot;
        this.#link = 'live';
      } catch {
        // A line that is not a snapshot is skipped; the next one replaces it.
      }
    };
    source.onerror = () => {
      this.#link = 'reconnecting';
    };
  }

  stop(): void {
    this.#source?.close();
    this.#source = null;
  }

  /** Asks mur console to ask a held door again at once. */
  async askAgain(key: string): Promise<void> {
    this.#askProblem = null;
    try {
      const answer = await consoleFetch(`${CONSOLE_RUNNING_DOORS_PREFIX}${encodeURIComponent(key)}/retry`, { method: 'POST' });
      if (!answer.ok) this.#askProblem = `Ask again for ${key}: mur console answered HTTP ${answer.status}`;
    } catch (error) {
      this.#askProblem = `Ask again for ${key}: no answer from mur console (${error instanceof Error ? error.message : String(error)})`;
    }
  }
}
