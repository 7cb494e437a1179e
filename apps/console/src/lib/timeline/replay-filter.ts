/**
 * Drops what a fresh WatchSession replays of events the timeline already shows, after the operator's Reconnect.
 *
 * A WatchSession cannot resume from one Last-Event-ID: ids are labels counted per task (docs/streaming.md, "Event
 * ids"), so `N` from one task says nothing of another's. A Reconnect therefore opens a fresh stream (the door replays
 * its whole buffer, at most 512 events) and this filter drops the events already shown, told apart as the client does
 * on its own reconnects: (task id, event id) and the event's exact content (the door replays the event it buffered).
 * Remembering costs one array write per event; the keys are built only when a Reconnect needs them.
 */
import type { StreamDataEvent } from '@murmur/client';

/** Recent events remembered: four times the door's replay buffer. */
const REPLAY_WINDOW = 2048;

function keyOf(event: StreamDataEvent): string | null {
  if (event.id === null) return null;
  return `${event.taskId ?? ''}\u0000${event.id}\u0000${JSON.stringify(event.response)}`;
}

export class ReplayFilter {
  readonly #recent: (StreamDataEvent | undefined)[];
  #next = 0;
  #shown: Set<string> | null = null;
  /** Events still checked against `#shown` (the replay comes first on the new stream). */
  #checks = 0;

  constructor(readonly window: number = REPLAY_WINDOW) {
    this.#recent = new Array(window);
  }

  /** Whether `event` repeats one shown before the last Reconnect; remembers it when it does not. */
  isRepeat(event: StreamDataEvent): boolean {
    if (this.#shown !== null) {
      if (this.#checks <= 0) this.#shown = null;
      else {
        this.#checks -= 1;
        const key = keyOf(event);
        if (key !== null && this.#shown.has(key)) return true;
      }
    }
    this.#recent[this.#next] = event;
    this.#next = (this.#next + 1) % this.window;
    return false;
  }

  /** A Reconnect: the next events are checked against those remembered. */
  expectReplay(): void {
    const shown = new Set<string>();
    for (const event of this.#recent) {
      const key = event === undefined ? null : keyOf(event);
      if (key !== null) shown.add(key);
    }
    this.#shown = shown;
    this.#checks = this.window;
  }

  /** A fresh start: nothing is shown any more. */
  clear(): void {
    this.#recent.fill(undefined);
    this.#next = 0;
    this.#shown = null;
    this.#checks = 0;
  }
}
