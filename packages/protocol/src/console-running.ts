/**
 * Running now (docs/console.md, "Running now"): `mur console` watches every door it knows (one murmur.WatchSession per
 * door, a bounded state each) and serves the page one aggregated snapshot, once or as a stream. Shared by the server
 * in apps/door and the console page that reads it.
 */
import type { TaskState } from './task-states.js';

/** GET: the snapshot once. */
export const CONSOLE_RUNNING_PATH = '/api/running';
/** GET: `text/event-stream`, one `data:` line per snapshot (at once, then on change), `:heartbeat` comments between. */
export const CONSOLE_RUNNING_STREAM_PATH = '/api/running/stream';
/** POST `<prefix><host:port>/retry`: the operator's Ask again for one door. */
export const CONSOLE_RUNNING_DOORS_PREFIX = '/api/running/doors/';

/** Doors watched at once; more are counted in `unwatched`. */
export const RUNNING_DOORS_MAX = 100;
/** Live tasks followed per door. */
export const RUNNING_TASKS_PER_DOOR_MAX = 200;
/** Tasks per door in a snapshot; the rest are counted in `moreTasks`. */
export const RUNNING_TASKS_SHOWN = 10;
/** The most characters of a prompt or a status text kept. */
export const RUNNING_TEXT_MAX = 300;
/** The shortest time between two pushed snapshots: changes in between are coalesced. @unit ms */
export const RUNNING_PUSH_MS = 500;

/**
 * What a task is doing, from the session stream (docs/console.md, "What current turn or tool call reads"):
 * `queued` (submitted), `turn` (an inference call), `tool` (a tool call in flight), `input` (waiting for a reply, with
 * the prompt), `status` (another working status's text), `unknown` (seeded from ListTasks, no event seen yet).
 */
export type RunningActivity =
  | { kind: 'queued' }
  | { kind: 'turn'; turn: number }
  | { kind: 'tool'; tool: string; toolCallId: string; turn: number | null; startedAt: string }
  | { kind: 'input'; prompt: string | null }
  | { kind: 'status'; text: string }
  | { kind: 'unknown' };

export interface RunningTask {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** From the task id (a UUIDv7 holds its creation time); null when the id holds none. RFC 3339. */
  createdAt: string | null;
  /** When the activity last changed (the event's timestamp). RFC 3339. */
  activityAt: string;
  activity: RunningActivity;
}

/**
 * How the watch of one door stands: `connecting` (seeding or opening), `live`, `needs-token` (the door answered 401:
 * held until the operator asks again), `unreachable` (held until `retryAt`), `closed` (its stream ended with
 * capsule-closed).
 */
export type RunningDoorState = 'connecting' | 'live' | 'needs-token' | 'unreachable' | 'closed';

export interface RunningDoor {
  /** host:port, as the console's routes name the door. */
  key: string;
  url: string;
  /** `local`: a session registered on this host; `added`: `mur console --door`. */
  origin: 'local' | 'added';
  /** The session's name (local doors), else null. */
  name: string | null;
  sessionId: string | null;
  /** Its place in a formation (local members only), else null. */
  formation: { name: string; member: string; entry: boolean } | null;
  state: RunningDoorState;
  /** Why it is held or closed, in words; null while connecting or live. */
  problem: string | null;
  /** When an unreachable door is asked again (RFC 3339), else null. */
  retryAt: string | null;
  /** Live tasks it follows, by state. */
  counts: Partial<Record<TaskState, number>>;
  /** More than RUNNING_TASKS_PER_DOOR_MAX live tasks: the counts are at least these. */
  truncated: boolean;
  /** At most RUNNING_TASKS_SHOWN: waiting for input first, then the oldest. */
  tasks: RunningTask[];
  /** How many followed tasks the snapshot leaves out. */
  moreTasks: number;
}

export interface ConsoleRunningSnapshot {
  /** When the snapshot was made (RFC 3339). */
  at: string;
  doors: RunningDoor[];
  /** Doors known but not watched (over RUNNING_DOORS_MAX). */
  unwatched: number;
  /** The bounds in force, so the page states them. */
  bounds: { doors: number; tasksPerDoor: number; shownPerDoor: number };
}
