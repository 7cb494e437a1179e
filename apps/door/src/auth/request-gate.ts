import {
  bearerChallenge,
  encodeRefusalBody,
  type HttpRefusalBody,
  headerLines,
  insufficientScopeRefusal,
  type InvalidTokenWhy,
  invalidTokenRefusal,
  peerNotAcceptedRefusal,
  refusalStatus,
  taskOrigins,
  unauthenticatedRefusal,
} from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import { type Caller, PUBLIC_CALLER, reaches } from './caller.js';
import type { TokenRegistry } from './token-registry.js';

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

  constructor(
    private readonly session: SessionContext,
    /** null on a public door, which answers every caller and ignores Authorization. */
    private readonly tokens: TokenRegistry | null,
  ) {
    this.realm = session.manifest.name;
  }

  check(rawHeaders: readonly string[]): GateVerdict {
    const token = this.authenticate(rawHeaders);
    if (!token.ok) return token;
    // Repeated header lines and a comma-separated value read the same (RFC 9110 §5.3): any of them saying peer counts.
    if (taskOrigins(rawHeaders).includes('peer') && !(this.session.manifest.exports.peer_tasks?.accept ?? false)) {
      return { ok: false, status: refusalStatus('peer_not_accepted'), headers: { 'content-type': 'application/json' }, body: PEER_NOT_ACCEPTED_BODY };
    }
    return token;
  }

  private authenticate(rawHeaders: readonly string[]): GateVerdict {
    if (this.tokens === null) return { ok: true, caller: PUBLIC_CALLER };
    const lines = headerLines(rawHeaders, 'authorization');
    if (lines.length === 0) return this.refuse(unauthenticatedRefusal(), bearerChallenge(this.realm));
    if (lines.length > 1) return this.invalidToken('several-headers');
    const match = BEARER.exec(lines[0]);
    if (match?.[1].toLowerCase() !== 'bearer') return this.invalidToken('not-bearer');
    const caller = this.tokens.callerFor(match[2]);
    if (!caller) return this.invalidToken('unknown-token');
    return { ok: true, caller };
  }

  /** Step 11: the method's scope, on an authenticated door. Methods that need no scope pass. */
  scopeRefusal(caller: Caller, scope: string | null): GateVerdict | null {
    if (this.tokens === null || scope === null || reaches(caller, scope)) return null;
    return this.refuse(insufficientScopeRefusal(caller.principal, scope), bearerChallenge(this.realm, { code: 'insufficient_scope', scope }));
  }

  private invalidToken(why: InvalidTokenWhy): GateVerdict {
    return this.refuse(invalidTokenRefusal(why), bearerChallenge(this.realm, { code: 'invalid_token' }));
  }

  private refuse(body: HttpRefusalBody, challenge: string): GateVerdict {
    return { ok: false, status: refusalStatus(body.error), headers: { 'content-type': 'application/json', 'www-authenticate': challenge }, body: encodeRefusalBody(body) };
  }
}
