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
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ConsoleApiError('the door answered something that is not an agent card', null);
  const card = body as { name?: unknown; version?: unknown; securitySchemes?: unknown; securityRequirements?: unknown };
  const schemes = typeof card.securitySchemes === 'object' && card.securitySchemes !== null ? Object.keys(card.securitySchemes).length : 0;
  const requirements = Array.isArray(card.securityRequirements) ? card.securityRequirements.length : 0;
  return {
    name: typeof card.name === 'string' ? card.name : null,
    version: typeof card.version === 'string' ? card.version : null,
    wantsToken: schemes + requirements > 0,
  };
}

/** One added door's status from its card's answer; `token`: a token this tab keeps for the door. */
export async function addedDoorStatus(door: ConsoleAddedDoor, token: string | null, signal?: AbortSignal): Promise<AddedDoorStatus> {
  let answer: JsonAnswer<CardFacts>;
  try {
    answer = await getJson(`${CONSOLE_DOOR_PROXY_PREFIX}${door.key}${AGENT_CARD_PATH}`, { read: readCard, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    return { name: null, version: null, state: 'unreachable', reason: error instanceof Error ? error.message : String(error) };
  }
  if (!answer.ok) return { name: null, version: null, state: 'unreachable', reason: answer.why };
  const { name, version, wantsToken } = answer.body;
  return { name, version, state: wantsToken && !door.hasToken && token === null ? 'needs a token' : 'running', reason: null };
}

export class AddedDoorStates {
  #states = $state.raw<ReadonlyMap<string, AddedDoorStatus>>(new Map());
  #abort: AbortController | null = null;

  /** The door's status, or undefined until its card was first asked. */
  get(key: string): AddedDoorStatus | undefined {
    return this.#states.get(key);
  }

  /** Asks every door's card at once; a refresh under way is dropped for the new one. */
  async refresh(doors: readonly ConsoleAddedDoor[], token: (key: string) => string | null): Promise<void> {
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const found = await Promise.all(doors.map(async (door) => [door.key, await addedDoorStatus(door, token(door.key), abort.signal)] as const));
      if (!abort.signal.aborted) this.#states = new Map(found);
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  }

  dispose(): void {
    this.#abort?.abort();
  }
}
