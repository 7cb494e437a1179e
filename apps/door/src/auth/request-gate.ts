import { TASK_ORIGIN_HEADER } from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import { type Caller, PUBLIC_CALLER } from '../tasks/caller.js';

export type GateVerdict = { ok: true; caller: Caller } | { ok: false; status: number; headers: Record<string, string>; body: string };

/** Byte-identical for every request it refuses (seed 000, step 3). */
export const PEER_NOT_ACCEPTED_BODY = JSON.stringify({
  error: 'peer_not_accepted',
  message: 'this capsule does not accept tasks from peer capsules: it does not declare exports.peer_tasks.accept',
});

/**
 * Steps 2 and 3 of "What the door answers", run in Fastify's onRequest hook before the path, body or method is
 * read: the door token (network.authentication, which the auth module implements), then peer consent.
 */
export class RequestGate {
  constructor(private readonly session: SessionContext) {}

  check(headers: Record<string, string | string[] | undefined>): GateVerdict {
    // Step 2, the token: a public door answers every caller and ignores Authorization.
    const caller = PUBLIC_CALLER;
    // Step 3, peer consent.
    if (isPeerOrigin(headers[TASK_ORIGIN_HEADER]) && !(this.session.manifest.exports.peer_tasks?.accept ?? false)) {
      return { ok: false, status: 403, headers: { 'content-type': 'application/json' }, body: PEER_NOT_ACCEPTED_BODY };
    }
    return { ok: true, caller };
  }
}

/**
 * Whether any x-murmur-task-origin line says peer. Node joins repeated lines of this header with ", ", so a
 * request sending the header twice must not slip past consent by no longer reading exactly "peer".
 */
function isPeerOrigin(value: string | string[] | undefined): boolean {
  if (value === undefined) return false;
  const lines = Array.isArray(value) ? value : [value];
  return lines.some((line) => line.split(',').some((part) => part.trim().toLowerCase() === 'peer'));
}
