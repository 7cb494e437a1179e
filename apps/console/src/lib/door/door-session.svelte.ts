/**
 * Everything the console holds for one door while an operator looks at it: the token, the client, the live
 * watch (murmur.WatchSession → timeline), the task list, the cards (door-cards), the door's session in this host's
 * records (record-search), and the session-wide actions (send, stop).
 * It outlives the views of that door (the door page and its task pages), so the timeline keeps running while an
 * operator opens a task; the app disposes it when they leave the door.
 */
import { MurmurClient } from '@murmur/client';
import type { StopSessionResult, Task } from '@murmur/protocol';
import { CAPSULE_CHECK_MS, capsuleGone } from './capsule-watch.js';
import { ControlPanel } from './control.svelte.js';
import { proxyAddress } from './door-address.js';
import { DoorCards } from './door-cards.svelte.js';
import type { DoorClient } from './door-client.js';
import { DoorHold, heldClient } from './door-hold.js';
import type { Problem } from '../io/errors.js';
import { LiveFeed } from '../timeline/live-feed.svelte.js';
import { Operation } from '../io/operation.svelte.js';
import type { PerfCounters } from '../timeline/perf.js';
import { RecordSearch } from '../records/record-search.svelte.js';
import type { RecordDoor } from '../records/records.js';
import { TaskActions } from '../tasks/task-actions.svelte.js';
import { TaskList } from '../tasks/task-list.svelte.js';
import { TimelineStore } from '../timeline/timeline.svelte.js';
import type { TokenStore } from './tokens.js';

export type ClientFactory = (address: string, token: string | null) => DoorClient;

/** The console's client asks once: when to ask an unreachable door again is the hold's back-off (door-hold.ts). */
export const defaultClientFactory: ClientFactory = (address, token) =>
  new MurmurClient(address, token === null ? { retry: { maxRetries: 0 } } : { token, retry: { maxRetries: 0 } });

/** Calls `listener` on each click or form submission in the page; returns the unsubscribe. */
type OperatorActs = (listener: () => void) => () => void;

const pageActs: OperatorActs = (listener) => {
  for (const type of ['click', 'submit']) document.addEventListener(type, listener, { capture: true });
  return () => {
    for (const type of ['click', 'submit']) document.removeEventListener(type, listener, { capture: true });
  };
};

export interface DoorSessionOptions {
  /** The page's origin: the client talks to `<origin>/api/door/<key>`. */
  origin: string;
  tokens: TokenStore;
  /** Where control tokens are kept, apart from door tokens (default: sessionStorage under their own prefix). */
  controlTokens?: TokenStore;
  createClient?: ClientFactory;
  /** The page's performance counters, updated by the session timeline's flushes. */
  perf?: PerfCounters;
  /** Whether the door's capsule is gone (default: mur console's process check); null turns the check off. */
  capsuleGone?: ((door: string) => Promise<string | null>) | null;
  /** Runs after each timeline flush writes its state (the app passes svelte's flushSync). */
  afterFlush?: () => void;
  /** What counts as the operator acting, which lets a held door be asked again (default: a click or submit). */
  operatorActs?: OperatorActs;
  /** The clock the hold's back-off reads. */
  now?: () => number;
  /** Whether mur console's proxy sends the door a token of its own (an added door's --token-file). @default never */
  proxyToken?: (door: string) => boolean;
}

export class DoorSession {
  readonly key: string;
  #token = $state<string | null>(null);
  #client = $state.raw<DoorClient>(null as unknown as DoorClient);
  #tokenProblem = $state.raw<Problem | null>(null);

  /** The public and the extended card. */
  readonly cards: DoorCards;
  /** This door's session in the records on this host: the tasks table's search, the session's export. */
  readonly records: RecordSearch;
  readonly timeline: TimelineStore;
  readonly watch: LiveFeed;
  readonly tasks: TaskList;
  /** Reply and Cancel from the timeline's task headers. */
  readonly actions: TaskActions;
  readonly send: Operation<Task>;
  readonly stop: Operation<StopSessionResult>;
  /** The session's control surface, with its own token (docs/control.md). */
  readonly control: ControlPanel;
  readonly #options: DoorSessionOptions;
  readonly #createClient: ClientFactory;
  #capsuleCheck: ReturnType<typeof setInterval> | null = null;
  /** Whether the door said it needs a token, or could not be reached: then it is not asked until the operator acts. */
  readonly #hold: DoorHold;
  #askAgain: ReturnType<typeof setTimeout> | null = null;
  readonly #stopActs: () => void;

  constructor(key: string, options: DoorSessionOptions) {
    this.key = key;
    this.#options = options;
    this.#hold = new DoorHold(options.now);
    this.#stopActs = (options.operatorActs ?? pageActs)(() => this.#hold.acted());
    this.#createClient = options.createClient ?? defaultClientFactory;
    this.#token = options.tokens.get(key);
    this.#client = this.#makeClient();
    const context = { door: key };
    const report = (problem: Problem) => this.report(problem);
    this.cards = new DoorCards({
      door: key,
      client: () => this.#client,
      token: () => this.#token,
      proxyToken: () => options.proxyToken?.(key) ?? false,
      report,
    });
    this.records = new RecordSearch(key, { door: () => this.recordDoor });
    this.timeline = new TimelineStore({ perf: options.perf, afterFlush: options.afterFlush });
    this.watch = new LiveFeed((signal) => this.#client.watchSession({ signal }), {
      timeline: this.timeline,
      context,
      onProblem: report,
      // A status (not a carrier) means a task changed state: the task list re-lists, debounced.
      onEvent: (event) => {
        if (event.kind === 'status' || event.kind === 'task') this.tasks.notifyChange();
      },
    });
    this.tasks = new TaskList(() => this.#client, {
      context,
      onProblem: report,
      search: (filters, token, signal) => this.records.search(filters, token, signal),
    });
    this.actions = new TaskActions(() => this.#client, { context, onProblem: report, onDone: () => this.tasks.notifyChange() });
    this.send = new Operation<Task>(context, report);
    this.stop = new Operation<StopSessionResult>(context, report);
    this.control = new ControlPanel(key, { origin: options.origin, tokens: options.controlTokens });
  }

  get client(): DoorClient {
    return this.#client;
  }
  /**
   * The door as the record readers take it (its record plane is read first), or null while the door is held: then
   * only mur console's records are read, and the door is asked nothing (docs/console.md, "Asking a door again").
   */
  get recordDoor(): RecordDoor | null {
    return this.#hold.problem === null ? { key: this.key, token: this.#token } : null;
  }
  get token(): string | null {
    return this.#token;
  }
  /** The latest 401 from this door, while no new token has been given. */
  get tokenProblem(): Problem | null {
    return this.#tokenProblem;
  }

  /** When an unreachable door is asked again (ms since the epoch), or null. */
  get askAgainAt(): number | null {
    return this.#hold.retryAt;
  }

  /**
   * Lists the tasks, then reads the cards and opens the watch: a door that answers the list 401 or not at all is
   * asked nothing more (only its public card, which needs no token) until the operator acts.
   */
  start(): Promise<void> {
    this.#watchCapsule();
    return this.#open(() => this.watch.start());
  }

  async #open(openWatch: () => Promise<void>): Promise<void> {
    await this.tasks.load();
    // After the list: a door that answered it 401 or not at all is not asked for its record session either.
    if (this.records.sessionId === null) void this.records.find();
    void this.cards.load();
    // The control surface takes its own token (docs/control.md): it is read beside the door, whatever the door said.
    void this.control.load();
    void openWatch();
  }

  /** A problem from anything on this door: a 401 opens the token prompt; a 401 or an unreachable door holds it. */
  report(problem: Problem): void {
    this.#hold.hold(problem);
    this.#scheduleAskAgain();
    if (!problem.needsToken) return;
    this.#tokenProblem = problem;
    // A refused token: what was read with it is no longer the operator's to see.
    this.tasks.clear();
    this.cards.forgetExtended();
  }

  /** Keeps `token` for this door (sessionStorage) and starts again with it. */
  setToken(token: string): void {
    this.#options.tokens.set(this.key, token);
    this.#token = token;
    this.#restart();
  }

  forgetToken(): void {
    this.#options.tokens.remove(this.key);
    this.#token = null;
    this.#restart();
  }

  /** Starts a task with `text` (SendMessage, answered as soon as the door accepts it). */
  sendMessage(text: string, contextId: string): Promise<Task | null> {
    return this.send.run(async () => {
      const task = await this.#client.sendText(text, { contextId: contextId.trim() === '' ? undefined : contextId.trim(), returnImmediately: true });
      this.tasks.notifyChange();
      return task;
    });
  }

  /** murmur.StopSession: cancels every live task; the door stays up. */
  stopSession(): Promise<StopSessionResult | null> {
    return this.stop.run(async () => {
      const result = await this.#client.stopSession();
      this.tasks.notifyChange();
      return result;
    });
  }

  dispose(): void {
    this.#stopActs();
    if (this.#askAgain !== null) clearTimeout(this.#askAgain);
    this.#askAgain = null;
    if (this.#capsuleCheck !== null) clearInterval(this.#capsuleCheck);
    this.#capsuleCheck = null;
    this.watch.stop();
    this.timeline.dispose();
    this.tasks.dispose();
    this.cards.dispose();
  }

  /** While the watch reconnects, asks mur console whether the capsule's process is gone, and marks it at once. */
  #watchCapsule(): void {
    if (this.#capsuleCheck !== null || this.#options.capsuleGone === null) return;
    const check = this.#options.capsuleGone ?? capsuleGone;
    let checking = false;
    this.#capsuleCheck = setInterval(async () => {
      if (checking || (this.watch.state !== 'reconnecting' && this.watch.state !== 'connecting')) return;
      checking = true;
      try {
        const why = await check(this.key);
        if (why !== null && (this.watch.state === 'reconnecting' || this.watch.state === 'connecting')) this.watch.markGone(why);
      } finally {
        checking = false;
      }
    }, CAPSULE_CHECK_MS);
  }

  #makeClient(): DoorClient {
    return heldClient(this.#createClient(proxyAddress(this.#options.origin, this.key), this.#token), this.#hold);
  }

  /** An unreachable door is asked again at the back-off's next step: the list, then the cards and the watch. */
  #scheduleAskAgain(): void {
    const at = this.#hold.retryAt;
    if (at === null) return;
    if (this.#askAgain !== null) clearTimeout(this.#askAgain);
    this.#askAgain = setTimeout(
      () => {
        this.#askAgain = null;
        const watch = this.watch.state;
        void this.#open(() =>
          watch === 'lost' || watch === 'needs-token' || watch === 'idle' || watch === 'closed' ? this.watch.reconnect() : Promise.resolve(),
        );
      },
      Math.max(0, at - (this.#options.now ?? Date.now)()),
    );
  }

  /** A new token (or none): nothing read with the old one stays on screen (tasks, inputs, extended card, timeline). */
  #restart(): void {
    this.#hold.release();
    this.#client = this.#makeClient();
    this.#tokenProblem = null;
    this.tasks.clear();
    this.cards.reset();
    this.send.reset();
    this.stop.reset();
    this.actions.reset();
    this.start();
  }
}
