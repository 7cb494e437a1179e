/**
 * Door tokens, one per door, in sessionStorage: they last as long as the browser tab's session and are never
 * written anywhere else (docs/auth.md: a token is valid until its session ends; a restart mints new ones).
 */
const PREFIX = 'murmur-console.token.';

/** Control tokens (docs/control.md) are kept apart from door tokens: neither is ever sent where the other goes. */
export const CONTROL_TOKEN_PREFIX = 'murmur-console.control-token.';

export class TokenStore {
  readonly #storage: Storage | null;
  readonly #prefix: string;

  constructor(storage: Storage | null = typeof sessionStorage === 'undefined' ? null : sessionStorage, prefix = PREFIX) {
    this.#storage = storage;
    this.#prefix = prefix;
  }

  get(door: string): string | null {
    try {
      return this.#storage?.getItem(this.#prefix + door) ?? null;
    } catch {
      return null;
    }
  }

  set(door: string, token: string): void {
    try {
      this.#storage?.setItem(this.#prefix + door, token);
    } catch {
      // Storage full or blocked: the token still works for this page's life.
    }
  }

  remove(door: string): void {
    try {
      this.#storage?.removeItem(this.#prefix + door);
    } catch {
      // as above
    }
  }
}

/** A pasted token, trimmed, with a `Bearer ` prefix removed if the operator copied the whole header value. */
export function cleanToken(input: string): string {
  return input
    .trim()
    .replace(/^bearer\s+/i, '')
    .trim();
}
