/**
 * How every timestamp in the console reads: relative (`12 s ago`), local wall time, or UTC — the operator's choice in
 * the top bar, kept in localStorage, so exact times are on the page on demand and not only in a hover tooltip.
 */
import { exactTime, relativeTime } from './time.js';

export const TIME_MODES = ['relative', 'local', 'utc'] as const;
export type TimeMode = (typeof TIME_MODES)[number];

const KEY = 'murmur-console.time-mode';

function isTimeMode(value: unknown): value is TimeMode {
  return typeof value === 'string' && (TIME_MODES as readonly string[]).includes(value);
}

/** The time as the mode shows it: `localTime` is `YYYY-MM-DD HH:MM:SS.mmm` local; `utc` the ISO timestamp. */
export function formatTime(iso: string, mode: TimeMode, nowMs: number): string {
  switch (mode) {
    case 'relative':
      return relativeTime(iso, nowMs);
    case 'local':
      return exactTime(iso).split(' · ')[0];
    case 'utc': {
      const ms = Date.parse(iso);
      return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
    }
    default: {
      const unreachable: never = mode;
      throw new TypeError(`unknown time mode ${String(unreachable)}`);
    }
  }
}

export class TimeModeSetting {
  #mode = $state<TimeMode>('relative');
  readonly #storage: Pick<Storage, 'getItem' | 'setItem'> | null;

  constructor(storage: Pick<Storage, 'getItem' | 'setItem'> | null = typeof localStorage === 'undefined' ? null : localStorage) {
    this.#storage = storage;
    const kept = storage?.getItem(KEY);
    if (isTimeMode(kept)) this.#mode = kept;
  }

  get mode(): TimeMode {
    return this.#mode;
  }

  set(mode: TimeMode): void {
    this.#mode = mode;
    try {
      this.#storage?.setItem(KEY, mode);
    } catch {
      // Storage full or refused (private mode): the choice holds for this page only.
    }
  }
}

export const timeMode = new TimeModeSetting();
