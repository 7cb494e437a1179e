/**
 * A door's agent cards: the public card (`GET /.well-known/agent-card.json`) and, on a door that has one and with a
 * token, the extended card (GetExtendedAgentCard) — or a note saying why there is none. Read again whenever the
 * door session starts (a new token); only the newest read lands.
 */
import { isA2AError } from '@murmur/client';
import type { AgentCard } from '@murmur/protocol';
import type { DoorClient } from './door-client.js';
import { describeError, type Problem } from '../io/errors.js';

export interface DoorCardsOptions {
  /** The door's host:port, to name it in a problem's words. */
  door: string;
  /** The door's client now (a new token makes a new one). */
  client: () => DoorClient;
  /** The door token now, or null. */
  token: () => string | null;
  /** Whether mur console's proxy sends this door a token of its own (a door added with `--door … --token-file`). */
  proxyToken?: () => boolean;
  /** A problem worth the door's attention (a 401 opens its token prompt). */
  report: (problem: Problem) => void;
}

const PUBLIC_DOOR = 'This door is public: it has no extended card.';

export class DoorCards {
  #public = $state.raw<AgentCard | null>(null);
  #problem = $state.raw<Problem | null>(null);
  #extended = $state.raw<AgentCard | null>(null);
  #extendedNote = $state<string | null>(null);
  readonly #options: DoorCardsOptions;
  #request = 0;

  constructor(options: DoorCardsOptions) {
    this.#options = options;
  }

  /** The public card; it stays when a read fails. */
  get public(): AgentCard | null {
    return this.#public;
  }
  /** Why the public card could not be read. */
  get problem(): Problem | null {
    return this.#problem;
  }
  get extended(): AgentCard | null {
    return this.#extended;
  }
  /** Why there is no extended card (no token; a public door has none), or null. */
  get extendedNote(): string | null {
    return this.#extendedNote;
  }
  /** The card says the door wants a token (it lists a security requirement). */
  get authenticated(): boolean {
    return (this.#public?.securityRequirements?.length ?? 0) > 0;
  }

  async load(): Promise<void> {
    const request = ++this.#request;
    const client = this.#options.client();
    try {
      const card = await client.getCard();
      if (request !== this.#request) return;
      this.#public = card;
      this.#problem = null;
    } catch (error) {
      if (request !== this.#request) return;
      this.#problem = describeError(error, { door: this.#options.door });
    }
    if (this.#public !== null && !this.#public.capabilities?.extendedAgentCard) {
      this.#extended = null;
      this.#extendedNote = PUBLIC_DOOR;
      return;
    }
    if (this.#options.token() === null && !this.#options.proxyToken?.()) {
      this.#extended = null;
      this.#extendedNote = 'Give a token to read the extended card.';
      return;
    }
    try {
      const extended = await client.getExtendedCard();
      if (request !== this.#request) return;
      this.#extended = extended;
      this.#extendedNote = null;
    } catch (error) {
      if (request !== this.#request) return;
      this.#extended = null;
      if (isA2AError(error, 'UnsupportedOperation') || isA2AError(error, 'ExtendedAgentCardNotConfigured')) {
        this.#extendedNote = PUBLIC_DOOR;
      } else {
        const problem = describeError(error, { door: this.#options.door });
        this.#options.report(problem);
        this.#extendedNote = `${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`;
      }
    }
  }

  /** A refused token: the extended card read with it is no longer the operator's to see. */
  forgetExtended(): void {
    this.#extended = null;
  }

  /** A new token (or none): the extended card and its note are read again. */
  reset(): void {
    this.#extended = null;
    this.#extendedNote = null;
  }

  dispose(): void {
    this.#request += 1;
  }
}
