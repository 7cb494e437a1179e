/**
 * The running-now watch of one door (docs/console.md, "Running now"): a ListTasks seed of its live tasks, then one
 * murmur.WatchSession, with no retry or reconnect by the client. A 401 or 403 holds the door until the operator asks
 * again; no answer (or a dropped stream) holds it until the back-off's next step (UNREACHABLE_BACKOFF_MS, as the
 * page's door hold); any answer starts the steps again.
 */
import { isHttpRefusalError, MurmurClient } from '@murmur/client';
import { type RunningDoorState, type Task, type TaskState, UNREACHABLE_BACKOFF_MS } from '@murmur/protocol';
import { clip, RunningTasks, type RunningTasksView } from './running-tasks.js';

/** The live states a seed lists, one ListTasks each. */
const LIVE_STATES: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'];
const SEED_PAGE_SIZE = 100;
/** The largest event the watch reads; a larger one drops the stream (then the back-off). */
const MAX_EVENT_SIZE = 4 * 1024 * 1024;

export interface WatchTarget {
  key: string;
  url: string;
  token: string | null;
}

export interface DoorWatchState {
  state: RunningDoorState;
  problem: string | null;
  retryAt: string | null;
}

export class DoorWatch {
  readonly target: WatchTarget;
  readonly #tasks: RunningTasks;
  readonly #onChange: () => void;
  readonly #client: MurmurClient;
  #state: RunningDoorState = 'connecting';
  #problem: string | null = null;
  #retryAt: number | null = null;
  #step = 0;
  #timer: NodeJS.Timeout | null = null;
  #abort: AbortController | null = null;
  #stopped = false;
  #run = 0;

  constructor(target: WatchTarget, onChange: () => void, tasks = new RunningTasks()) {
    this.target = target;
    this.#onChange = onChange;
    this.#tasks = tasks;
    this.#client = new MurmurClient(target.url, {
      ...(target.token === null ? {} : { token: target.token }),
      retry: { maxRetries: 0 },
      reconnect: false,
      maxEventSize: MAX_EVENT_SIZE,
    });
  }

  get watchState(): DoorWatchState {
    return { state: this.#state, problem: this.#problem, retryAt: this.#retryAt === null ? null : new Date(this.#retryAt).toISOString() };
  }

  view(): RunningTasksView {
    return this.#tasks.view();
  }

  start(): void {
    void this.#connect();
  }

  /** The operator's Ask again: a held door is asked at once (a live one is left alone). */
  askAgain(): void {
    if (this.#stopped || this.#state === 'live' || this.#state === 'connecting') return;
    void this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    this.#run += 1;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#abort?.abort();
    this.#abort = null;
  }

  async #connect(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    const run = ++this.#run;
    const current = () => run === this.#run && !this.#stopped;
    this.#set('connecting', null);
    try {
      await this.#seed(abort.signal);
      if (!current()) return;
      this.#step = 0;
      this.#onChange();
      for await (const event of this.#client.watchSession({ signal: abort.signal, reconnect: false })) {
        if (!current()) return;
        if (event.kind === 'connection') {
          if (event.state === 'open') this.#set('live', null);
          continue;
        }
        if (event.kind === 'message' || (event.kind === 'frame' && event.taskId === null)) {
          if (event.frame?.frame === 'capsule-closed') {
            this.#hold('closed', 'the capsule closed its stream');
            return;
          }
          // Events this watch may have missed: read the live tasks again rather than keep ended ones.
          if (event.frame?.frame === 'lagged' || event.frame?.frame === 'gap') await this.#seed(abort.signal);
          if (!current()) return;
          this.#onChange();
          continue;
        }
        if (this.#tasks.apply(event)) this.#onChange();
      }
      if (current()) this.#hold('unreachable', 'the session stream ended');
    } catch (error) {
      if (!current()) return;
      if (isHttpRefusalError(error) && (error.status === 401 || error.status === 403)) {
        this.#tasks.clear();
        this.#set('needs-token', `the door answered ${error.status}: open it to give a token, then ask again`);
        this.#onChange();
        return;
      }
      this.#hold('unreachable', clip(error instanceof Error ? error.message : String(error)));
    }
  }

  /** One ListTasks per live state, one after another (a door that does not answer gets one request), into the table. */
  async #seed(signal: AbortSignal): Promise<void> {
    const tasks: Task[] = [];
    for (const status of LIVE_STATES) {
      const page = await this.#client.listTasks({ status, pageSize: SEED_PAGE_SIZE, includeArtifacts: status === 'TASK_STATE_INPUT_REQUIRED' }, { signal });
      tasks.push(...page.tasks);
    }
    this.#tasks.seed(tasks);
  }

  /** Holds the door (unreachable, or closed) until the back-off's next step. */
  #hold(state: 'unreachable' | 'closed', problem: string): void {
    const wait = UNREACHABLE_BACKOFF_MS[Math.min(this.#step, UNREACHABLE_BACKOFF_MS.length - 1)];
    this.#step += 1;
    this.#retryAt = Date.now() + wait;
    this.#state = state;
    this.#problem = problem;
    this.#abort = null;
    // What it showed is no longer known: the page says why instead.
    this.#tasks.clear();
    this.#timer = setTimeout(() => void this.#connect(), wait);
    this.#timer.unref();
    this.#onChange();
  }

  #set(state: RunningDoorState, problem: string | null): void {
    this.#state = state;
    this.#problem = problem;
    this.#retryAt = null;
    this.#onChange();
  }
}
