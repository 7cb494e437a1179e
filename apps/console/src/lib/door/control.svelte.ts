/**
 * The control surface of one door (docs/control.md): its own token, kept apart from the door's, the settings it
 * changes (GET /control) and a driver switch (POST /control), through mur console's same-origin proxy.
 */
import { CONTROL_PATH, type ControlChange, type ControlSettings } from '@murmur/protocol';
import { proxyAddress } from './door-address.js';
import { consoleFetch } from '../io/console-api.js';
import type { Problem } from '../io/errors.js';
import { CONTROL_TOKEN_PREFIX, TokenStore } from './tokens.js';

export interface ControlOptions {
  origin: string;
  tokens?: TokenStore;
}

type Answer<T> = { ok: true; value: T } | { ok: false; problem: Problem };

export class ControlPanel {
  readonly key: string;
  #token = $state<string | null>(null);
  #settings = $state.raw<ControlSettings | null>(null);
  #problem = $state.raw<Problem | null>(null);
  #result = $state.raw<ControlChange | null>(null);
  #busy = $state(false);
  readonly #tokens: TokenStore;
  readonly #url: string;

  constructor(key: string, options: ControlOptions) {
    this.key = key;
    this.#tokens = options.tokens ?? new TokenStore(undefined, CONTROL_TOKEN_PREFIX);
    this.#url = `${proxyAddress(options.origin, key)}${CONTROL_PATH}`;
    this.#token = this.#tokens.get(key);
  }

  get token(): string | null {
    return this.#token;
  }
  get settings(): ControlSettings | null {
    return this.#settings;
  }
  /** The latest refusal or failure; `needsToken` when the control surface refused the token. */
  get problem(): Problem | null {
    return this.#problem;
  }
  /** The latest accepted change. */
  get result(): ControlChange | null {
    return this.#result;
  }
  get busy(): boolean {
    return this.#busy;
  }
  /** The driver choice the next inference call is served by, when the session has one. */
  get driver(): ControlSettings['settings'][number] | null {
    return this.#settings?.settings.find((s) => s.setting === 'inference.driver') ?? null;
  }

  setToken(token: string): void {
    this.#tokens.set(this.key, token);
    this.#token = token;
    this.#problem = null;
    this.#result = null;
    void this.load();
  }

  forgetToken(): void {
    this.#tokens.remove(this.key);
    this.#token = null;
    this.#settings = null;
    this.#result = null;
    this.#problem = null;
  }

  /** GET /control: the settings and their choices; nothing is asked without a token. */
  async load(): Promise<void> {
    if (this.#token === null) return;
    const answer = await this.#request<ControlSettings>('GET');
    if (answer.ok) this.#settings = answer.value;
    else this.#fail(answer.problem);
  }

  /** POST /control: the choice that serves the session's next inference call. */
  async switchDriver(choice: string): Promise<void> {
    if (this.#token === null) return;
    this.#busy = true;
    this.#result = null;
    this.#problem = null;
    try {
      const answer = await this.#request<ControlChange>('POST', { setting: 'inference.driver', value: choice });
      if (!answer.ok) return this.#fail(answer.problem);
      this.#result = answer.value;
      await this.load();
    } finally {
      this.#busy = false;
    }
  }

  #fail(problem: Problem): void {
    this.#problem = problem;
    // A refused token: what it read is no longer the operator's to see.
    if (problem.needsToken) this.#settings = null;
  }

  async #request<T>(method: 'GET' | 'POST', body?: unknown): Promise<Answer<T>> {
    let response: Response;
    try {
      response = await consoleFetch(this.#url, {
        method,
        headers: { authorization: `Bearer ${this.#token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return {
        ok: false,
        problem: controlProblem('unreachable', `Cannot reach the door at ${this.key}`, 'No answer: is mur console still running, and is the session up?', null),
      };
    }
    let json: unknown;
    try {
      json = await response.json();
    } catch {
      return { ok: false, problem: controlProblem('invalid-response', `Could not read the control surface of ${this.key}`, null, response.status) };
    }
    if (response.ok) return { ok: true, value: json as T };
    const message = typeof (json as { message?: unknown }).message === 'string' ? (json as { message: string }).message : null;
    if (response.status === 401) return { ok: false, problem: controlProblem('needs-token', 'The control surface refused the token', message, 401) };
    return { ok: false, problem: controlProblem('refused', `The control surface refused (HTTP ${response.status})`, message, response.status) };
  }
}

function controlProblem(kind: Problem['kind'], title: string, detail: string | null, code: number | null): Problem {
  return { kind, title, detail, needsToken: kind === 'needs-token', code };
}
