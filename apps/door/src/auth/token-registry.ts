import { createHash, timingSafeEqual } from 'node:crypto';
import { type Caller, OPERATOR_PRINCIPAL } from './caller.js';
import type { MintedToken } from './tokens.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The tokens this run minted, looked up in constant time: every candidate's digest is compared with
 * timingSafeEqual, so neither the match nor the length of a wrong token shows in the time taken.
 */
export class TokenRegistry {
  private readonly entries: { digest: Buffer; caller: Caller }[] = [];

  constructor(tokens: MintedToken[]) {
    this.add(tokens);
  }

  /**
   * Tokens minted after launch: a formation's member tokens (`member:<caller>`), which the supervisor can mint only
   * once every member's door listens (docs/formations.md, "Member tokens"). Valid from now until the session ends.
   */
  add(tokens: readonly MintedToken[]): void {
    for (const t of tokens) {
      this.entries.push({
        digest: digest(t.token),
        caller:
          t.credential === OPERATOR_PRINCIPAL
            ? { principal: OPERATOR_PRINCIPAL, sees: 'all', scopes: 'all' }
            : { principal: t.credential, sees: 'own', scopes: t.scopes === 'all' ? 'all' : new Set(t.scopes) },
      });
    }
  }

  callerFor(token: string): Caller | null {
    const candidate = digest(token);
    let found: Caller | null = null;
    for (const entry of this.entries) if (timingSafeEqual(entry.digest, candidate)) found = entry.caller;
    return found;
  }
}
