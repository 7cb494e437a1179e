import { headerLines, taskOrigins } from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import { type Caller, PUBLIC_CALLER, reaches } from './caller.js';
import type { TokenRegistry } from './token-registry.js';

export type GateVerdict = { ok: true; caller: Caller } | { ok: false; status: number; headers: Record<string, string>; body: string };

/** Byte-identical for every request it refuses (seed 000, step 3). */
export const PEER_NOT_ACCEPTED_BODY = JSON.stringify({
  error: 'peer_not_accepted',
  message: 'this capsule does not accept tasks from peer capsules: it does not declare exports.peer_tasks.accept',
});

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
    this.realm = `Bearer realm="${session.manifest.name}"`;
  }

  check(rawHeaders: readonly string[]): GateVerdict {
    const token = this.authenticate(rawHeaders);
    if (!token.ok) return token;
    // Repeated header lines and a comma-separated value read the same (RFC 9110 §5.3): any of them saying peer counts.
    if (taskOrigins(rawHeaders).includes('peer') && !(this.session.manifest.exports.peer_tasks?.accept ?? false)) {
      return { ok: false, status: 403, headers: { 'content-type': 'application/json' }, body: PEER_NOT_ACCEPTED_BODY };
    }
    return token;
  }

  private authenticate(rawHeaders: readonly string[]): GateVerdict {
    if (this.tokens === null) return { ok: true, caller: PUBLIC_CALLER };
    const lines = headerLines(rawHeaders, 'authorization');
    if (lines.length === 0) {
      return this.refuse401('unauthenticated', null, 'this door needs a bearer token: send Authorization: Bearer <token> (mur token prints them)');
    }
    if (lines.length > 1) return this.refuse401('invalid_token', 'invalid_token', 'send one Authorization header, not several');
    const match = BEARER.exec(lines[0]);
    if (match?.[1].toLowerCase() !== 'bearer') {
      return this.refuse401('invalid_token', 'invalid_token', 'the Authorization header must be Bearer <token>');
    }
    const caller = this.tokens.callerFor(match[2]);
    if (!caller) return this.refuse401('invalid_token', 'invalid_token', 'this token was not minted by this session, or the session has been restarted since');
    return { ok: true, caller };
  }

  /** Step 11: the method's scope, on an authenticated door. Methods that need no scope pass. */
  scopeRefusal(caller: Caller, scope: string | null): GateVerdict | null {
    if (this.tokens === null || scope === null || reaches(caller, scope)) return null;
    return {
      ok: false,
      status: 403,
      headers: { 'content-type': 'application/json', 'www-authenticate': `${this.realm}, error="insufficient_scope", scope="${scope}"` },
      body: JSON.stringify({ error: 'insufficient_scope', message: `credential '${caller.principal}' does not reach ${scope}` }),
    };
  }

  private refuse401(error: 'unauthenticated' | 'invalid_token', challenge: string | null, message: string): GateVerdict {
    return {
      ok: false,
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': challenge ? `${this.realm}, error="${challenge}"` : this.realm },
      body: JSON.stringify({ error, message }),
    };
  }
}
