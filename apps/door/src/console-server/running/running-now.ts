/**
 * Running now across every door the console knows (docs/console.md, "Running now"): this host's registered sessions
 * (read again every REGISTRY_MS) and the added doors, at most `maxDoors` watched, one DoorWatch each. It runs only
 * while read: the first snapshot or subscriber starts it, and it stops IDLE_STOP_MS after the last subscriber left
 * and the last snapshot was read. Subscribers hear of a change at most once every RUNNING_PUSH_MS.
 */
import {
  type ConsoleRunningSnapshot,
  RUNNING_DOORS_MAX,
  RUNNING_PUSH_MS,
  RUNNING_TASKS_PER_DOOR_MAX,
  RUNNING_TASKS_SHOWN,
  type RunningDoor,
} from '@murmur/protocol';
import { listSessions } from '../../session/session-registry.js';
import type { AddedDoor } from '../added-doors.js';
import { DoorWatch } from './door-watch.js';

const REGISTRY_MS = 2_000;
const IDLE_STOP_MS = 30_000;

/** What the snapshot says of a door beside its watch. */
type DoorInfo = Pick<RunningDoor, 'key' | 'url' | 'origin' | 'name' | 'sessionId' | 'formation'>;

interface Known {
  info: DoorInfo;
  token: string | null;
}

export interface RunningNowOptions {
  home: string;
  added?: readonly AddedDoor[];
  /** @default RUNNING_DOORS_MAX */
  maxDoors?: number;
}

export class RunningNow {
  readonly #home: string;
  readonly #added: readonly AddedDoor[];
  readonly #maxDoors: number;
  readonly #watches = new Map<string, { watch: DoorWatch; info: DoorInfo }>();
  readonly #listeners = new Set<(snapshot: ConsoleRunningSnapshot) => void>();
  #unwatched = 0;
  #active = false;
  #lastRead = 0;
  #registryTimer: NodeJS.Timeout | null = null;
  #pushTimer: NodeJS.Timeout | null = null;
  #lastPush = 0;

  constructor(options: RunningNowOptions) {
    this.#home = options.home;
    this.#added = options.added ?? [];
    this.#maxDoors = options.maxDoors ?? RUNNING_DOORS_MAX;
  }

  /** The snapshot now (starting the watches when they are not running). */
  snapshot(): ConsoleRunningSnapshot {
    this.#lastRead = Date.now();
    this.#start();
    return this.#snapshot();
  }

  /** Hears every change (coalesced); the listener is called at once with the current snapshot. */
  subscribe(listener: (snapshot: ConsoleRunningSnapshot) => void): () => void {
    this.#lastRead = Date.now();
    this.#start();
    this.#listeners.add(listener);
    listener(this.#snapshot());
    return () => {
      this.#listeners.delete(listener);
      this.#lastRead = Date.now();
    };
  }

  /** The operator's Ask again for one door; false when no watched door has that key. */
  askAgain(key: string): boolean {
    const watched = this.#watches.get(key);
    if (!watched) return false;
    watched.watch.askAgain();
    return true;
  }

  /** Stops every watch and timer (the console is closing). */
  close(): void {
    this.#stop();
    this.#listeners.clear();
  }

  #start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#refreshDoors();
    this.#registryTimer = setInterval(() => {
      if (this.#listeners.size === 0 && Date.now() - this.#lastRead > IDLE_STOP_MS) {
        this.#stop();
        return;
      }
      this.#refreshDoors();
    }, REGISTRY_MS);
    this.#registryTimer.unref();
  }

  #stop(): void {
    this.#active = false;
    if (this.#registryTimer) clearInterval(this.#registryTimer);
    if (this.#pushTimer) clearTimeout(this.#pushTimer);
    this.#registryTimer = null;
    this.#pushTimer = null;
    for (const { watch } of this.#watches.values()) watch.stop();
    this.#watches.clear();
  }

  /** The doors to watch: live local sessions (oldest first), then the added doors; the first `maxDoors` of them. */
  #known(): Known[] {
    const known: Known[] = [];
    const seen = new Set<string>();
    for (const entry of listSessions(this.#home)) {
      if (entry.stale) continue;
      let key: string;
      try {
        key = new URL(entry.url).host;
      } catch {
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      const formation = entry.formation ? { name: entry.formation.name, member: entry.formation.member, entry: entry.formation.entry } : null;
      known.push({ info: { key, url: entry.url, origin: 'local', name: entry.name, sessionId: entry.sessionId, formation }, token: null });
    }
    for (const door of this.#added) {
      if (seen.has(door.key)) continue;
      seen.add(door.key);
      known.push({ info: { key: door.key, url: door.url, origin: 'added', name: null, sessionId: null, formation: null }, token: door.token });
    }
    return known;
  }

  #refreshDoors(): void {
    const known = this.#known();
    const wanted = known.slice(0, this.#maxDoors);
    const unwatched = known.length - wanted.length;
    let changed = unwatched !== this.#unwatched;
    this.#unwatched = unwatched;
    const keys = new Set(wanted.map((k) => k.info.key));
    for (const [key, { watch }] of this.#watches) {
      if (keys.has(key)) continue;
      watch.stop();
      this.#watches.delete(key);
      changed = true;
    }
    for (const { info, token } of wanted) {
      const watched = this.#watches.get(info.key);
      // A new session on a port another one left is another door.
      if (watched && watched.info.sessionId === info.sessionId) continue;
      watched?.watch.stop();
      const watch = new DoorWatch({ key: info.key, url: info.url, token }, () => this.#changed());
      this.#watches.set(info.key, { watch, info });
      watch.start();
      changed = true;
    }
    if (changed) this.#changed();
  }

  #changed(): void {
    if (this.#pushTimer !== null || this.#listeners.size === 0) return;
    const wait = Math.max(0, this.#lastPush + RUNNING_PUSH_MS - Date.now());
    this.#pushTimer = setTimeout(() => {
      this.#pushTimer = null;
      this.#lastPush = Date.now();
      const snapshot = this.#snapshot();
      for (const listener of this.#listeners) listener(snapshot);
    }, wait);
    this.#pushTimer.unref();
  }

  #snapshot(): ConsoleRunningSnapshot {
    const doors: RunningDoor[] = [];
    for (const { watch, info } of this.#watches.values()) doors.push({ ...info, ...watch.watchState, ...watch.view() });
    return {
      at: new Date().toISOString(),
      doors,
      unwatched: this.#unwatched,
      bounds: { doors: this.#maxDoors, tasksPerDoor: RUNNING_TASKS_PER_DOOR_MAX, shownPerDoor: RUNNING_TASKS_SHOWN },
    };
  }
}
