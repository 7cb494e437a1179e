import {
  bearerChallenge,
  encodeRefusalBody,
  type HttpRefusalBody,
  insufficientScopeRefusal,
  type InvalidTokenWhy,
  invalidTokenRefusal,
  peerNotAcceptedRefusal,
  refusalStatus,
  type RequestHeaderLines,
  taskOrigins,
  unauthenticatedRefusal,
} from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import { type Caller, PUBLIC_CALLER, reaches } from './caller.js';
import { TokenRegistry } from './token-registry.js';
import type { MintedToken } from './tokens.js';

export type GateVerdict = { ok: true; caller: Caller } | { ok: false; status: number; headers: Record<string, string>; body: string };

/** Byte-identical for every request it refuses (seed 000, step 3). */
const PEER_NOT_ACCEPTED_BODY = encodeRefusalBody(peerNotAcceptedRefusal());

const BEARER = /^([A-Za-z][A-Za-z0-9._~+/-]*) (.+)$/;

/**
 * Steps 2, 3 and 11 of "What the door answers". Steps 2 and 3 run in Fastify's onRequest hook, before the path,
 * the body or the method is read: the door token on an authenticated door, then peer consent. Step 11, the
 * method's scope, runs in the pipeline once the method is known. Every refusal is an HTTP status and a JSON body.
 */
export class RequestGate {
  private readonly realm: string;

  /** A public formation member's door: it answers every caller, and a caller presenting a member token is that member. */
  private memberTokens: TokenRegistry | null = null;

  constructor(
    private readonly session: SessionContext,
    /** null on a public door, which answers every caller and ignores Authorization. */
    private readonly tokens: TokenRegistry | null,
  ) {
    this.realm = session.manifest.name;
  }

  /**
   * Formation tokens handed over after launch (docs/formations.md, "Member tokens"). An authenticated door adds them
   * to its registry; a public door keeps them apart, so a request without one stays a public caller.
   */
  acceptTokens(tokens: readonly MintedToken[]): void {
    if (this.tokens !== null) {
      this.tokens.add(tokens);
      return;
    }
    this.memberTokens ??= new TokenRegistry([]);
    this.memberTokens.add(tokens);
  }

  check(headers: RequestHeaderLines): GateVerdict {
    const token = this.authenticate(headers.authorization);
    if (!token.ok) return token;
    // Repeated header lines and a comma-separated value read the same (RFC 9110 §5.3): any of them saying peer counts.
    if (taskOrigins(headers).includes('peer') && !(this.session.manifest.exports.peer_tasks?.accept ?? false)) {
      return { ok: false, status: refusalStatus('peer_not_accepted'), headers: { 'content-type': 'application/json' }, body: PEER_NOT_ACCEPTED_BODY };
    }
    return token;
  }

  /** `lines`: the request's Authorization lines. */
  private authenticate(lines: readonly string[]): GateVerdict {
    if (this.tokens === null) return { ok: true, caller: this.publicMember(lines) ?? PUBLIC_CALLER };
    if (lines.length === 0) return this.refuse(unauthenticatedRefusal(), bearerChallenge(this.realm));
    if (lines.length > 1) return this.invalidToken('several-headers');
    const match = BEARER.exec(lines[0] ?? '');
    if (match?.[1]?.toLowerCase() !== 'bearer' || match[2] === undefined) return this.invalidToken('not-bearer');
    const caller = this.tokens.callerFor(match[2]);
    if (!caller) return this.invalidToken('unknown-token');
    return { ok: true, caller };
  }

  /** On a public door, the member a formation token names; any other Authorization is ignored, as before. */
  private publicMember(lines: readonly string[]): Caller | null {
    if (this.memberTokens === null) return null;
    const match = lines.length === 1 ? BEARER.exec(lines[0] ?? '') : null;
    return match?.[1].toLowerCase() === 'bearer' ? this.memberTokens.callerFor(match[2]) : null;
  }

  /** Whether `token` is one this door accepts (any credential's, or a member's): the control surface refuses it by name. */
  isDoorToken(token: string): boolean {
    return (this.tokens?.callerFor(token) ?? this.memberTokens?.callerFor(token) ?? null) !== null;
  }

  /** Step 11: the method's scope, on an authenticated door (and for a member token on a public one). Methods that need no scope pass. */
  scopeRefusal(caller: Caller, scope: string | null): GateVerdict | null {
    if ((this.tokens === null && caller === PUBLIC_CALLER) || scope === null || reaches(caller, scope)) return null;
    return this.refuse(insufficientScopeRefusal(caller.principal, scope), bearerChallenge(this.realm, { code: 'insufficient_scope', scope }));
  }

  private invalidToken(why: InvalidTokenWhy): GateVerdict {
    return this.refuse(invalidTokenRefusal(why), bearerChallenge(this.realm, { code: 'invalid_token' }));
  }

  private refuse(body: HttpRefusalBody, challenge: string): GateVerdict {
    return {
      ok: false,
      status: refusalStatus(body.error),
      headers: { 'content-type': 'application/json', 'www-authenticate': challenge },
      body: encodeRefusalBody(body),
    };
  }
}
