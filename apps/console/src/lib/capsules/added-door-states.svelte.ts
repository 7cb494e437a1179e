/**
 * What the capsules page says of each added door (docs/console.md, "Across hosts"): its name and version from its
 * public card, read through mur console's proxy, and its state in words — `running`, `needs a token` (its card asks
 * for one and neither a token file nor this tab holds one) or `unreachable` (with why). The public card needs no
 * token, so reading it never holds the door.
 */
import { AGENT_CARD_PATH, CONSOLE_DOOR_PROXY_PREFIX, type ConsoleAddedDoor } from '@murmur/protocol';
import { getJson, type JsonAnswer } from '../io/console-api.js';
import { ConsoleApiError } from '../io/errors.js';

type AddedDoorState = 'running' | 'needs a token' | 'unreachable';

export interface AddedDoorStatus {
  name: string | null;
  version: string | null;
  state: AddedDoorState;
  /** Why it is unreachable. */
  reason: string | null;
}

interface CardFacts {
  name: string | null;
  version: string | null;
  /** The card names a security scheme or requirement: calls need a bearer token. */
  wantsToken: boolean;
}

/** The facts of a public card the page shows; a body that is no card is refused. */
function readCard(body: unknown): CardFacts {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ConsoleApiError('the door answered something that is not an agent card', null);
  const card = body as { name?: unknown; version?: unknown; securitySchemes?: unknown; securityRequirements?: unknown };
  const schemes = typeof card.securitySchemes === 'object' && card.securitySchemes !== null ? Object.keys(card.securitySchemes).length : 0;
  const requirements = Array.isArray(card.securityRequirements) ? card.securityRequirements.length : 0;
  return {
    name: typeof card.name === 'string' ? card.name : null,
    version: typeof card.version === 'string' ? card.version : null,
    wantsToken: schemes + requirements > 0,
  };
}

/** How long a card is waited for: the proxy has no timeout of its own, and a host that drops packets never answers. @unit ms */
const CARD_WAIT_MS = 2000;

/** One added door's status from its card's answer; `token`: a token this tab keeps for the door. */
export async function addedDoorStatus(door: ConsoleAddedDoor, token: string | null, waitMs = CARD_WAIT_MS): Promise<AddedDoorStatus> {
  const unreachable = (reason: string): AddedDoorStatus => ({ name: null, version: null, state: 'unreachable', reason });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitMs);
  let answer: JsonAnswer<CardFacts>;
  try {
    answer = await getJson(`${CONSOLE_DOOR_PROXY_PREFIX}${door.key}${AGENT_CARD_PATH}`, { read: readCard, signal: abort.signal });
  } catch (error) {
    return unreachable(abort.signal.aborted ? `no answer in ${waitMs / 1000} s` : error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
  if (!answer.ok) return unreachable(answer.why);
  const { name, version, wantsToken } = answer.body;
  return { name, version, state: wantsToken && !door.hasToken && token === null ? 'needs a token' : 'running', reason: null };
}

export class AddedDoorStates {
  #states = $state.raw<ReadonlyMap<string, AddedDoorStatus>>(new Map());
  #busy = false;
  #disposed = false;

  /** The door's status, or undefined until its card was first asked. */
  get(key: string): AddedDoorStatus | undefined {
    return this.#states.get(key);
  }

  /** Asks every door's card at once (each waited for 2 s at most); a refresh while one is under way is skipped. */
  async refresh(doors: readonly ConsoleAddedDoor[], token: (key: string) => string | null): Promise<void> {
    if (this.#busy || this.#disposed) return;
    this.#busy = true;
    try {
      const found = await Promise.all(doors.map(async (door) => [door.key, await addedDoorStatus(door, token(door.key))] as const));
      if (!this.#disposed) this.#states = new Map(found);
    } finally {
      this.#busy = false;
    }
  }

  dispose(): void {
    this.#disposed = true;
  }
}
