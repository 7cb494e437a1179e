/**
 * The capsules on this host, as `mur console` lists them: `GET /api/sessions` (the session registry, each entry
 * checked: a stale pid, a door that does not answer with a card). This is mur console's own API, not the A2A wire.
 */
import { CONSOLE_SESSIONS_PATH, type ConsoleSession } from '@murmur/protocol';
import { doorKeyOfUrl } from '../door/door-address.js';
import { requireJson } from '../io/console-api.js';
import { ConsoleApiError, type Problem } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';

/** One session as `GET /api/sessions` lists it, the fields the console reads (not the door registry's SessionEntry). */
export type ListedSession = Pick<
  ConsoleSession,
  'sessionId' | 'name' | 'version' | 'url' | 'pid' | 'startedAt' | 'stale' | 'reachable' | 'reason' | 'needsInput'
>;

export type SessionState = 'running' | 'unreachable' | 'stale';

export interface SessionRow extends ListedSession {
  state: SessionState;
  /** `host:port` when the URL is a loopback door the console can open, else null. */
  door: string | null;
}

export function sessionState(entry: Pick<ListedSession, 'stale' | 'reachable'>): SessionState {
  if (entry.stale) return 'stale';
  return entry.reachable ? 'running' : 'unreachable';
}

/** Reads the body of `GET /api/sessions`, keeping the entries it can read. */
export function readSessions(body: unknown): SessionRow[] {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { sessions?: unknown }).sessions)) {
    throw new ConsoleApiError('/api/sessions answered something that is not a session list', null);
  }
  const rows: SessionRow[] = [];
  for (const item of (body as { sessions: unknown[] }).sessions) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    if (typeof e.sessionId !== 'string' || typeof e.url !== 'string') continue;
    const entry: ListedSession = {
      sessionId: e.sessionId,
      name: typeof e.name === 'string' ? e.name : '(unnamed)',
      version: typeof e.version === 'string' ? e.version : '',
      url: e.url,
      pid: typeof e.pid === 'number' ? e.pid : 0,
      startedAt: typeof e.startedAt === 'string' ? e.startedAt : '',
      stale: e.stale === true,
      reachable: e.reachable === true,
    };
    if (typeof e.reason === 'string') entry.reason = e.reason;
    if (typeof e.needsInput === 'number' && Number.isInteger(e.needsInput) && e.needsInput >= 0) entry.needsInput = e.needsInput;
    rows.push({ ...entry, state: sessionState(entry), door: doorKeyOfUrl(entry.url) });
  }
  return rows;
}

export class Sessions {
  readonly #loader = new Loader<SessionRow[]>();
  readonly #url: string;

  constructor(options: { url?: string } = {}) {
    this.#url = options.url ?? CONSOLE_SESSIONS_PATH;
  }

  /** null until the first answer. */
  get rows(): SessionRow[] | null {
    return this.#loader.value;
  }
  get loading(): boolean {
    return this.#loader.loading;
  }
  get problem(): Problem | null {
    return this.#loader.problem;
  }
  get updatedAt(): number | null {
    return this.#loader.loadedAt;
  }

  async refresh(): Promise<void> {
    await this.#loader.load((signal) => this.#read(signal));
  }

  #read(signal: AbortSignal): Promise<SessionRow[]> {
    return requireJson(this.#url, { read: readSessions, signal });
  }
}
