/**
 * "Lists localhost" (docs/formations.md, "Egress"): member doors listen on 127.0.0.1, and a call is the caller's own
 * outbound traffic, so it is checked against the caller's capabilities.network.allow. An entry admits a member's
 * door when it is localhost or 127.0.0.1, bare, with :* or with that door's port.
 */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1'];

export function allowsMemberDoor(allow: readonly string[], port: number | null): boolean {
  return allow.some((entry) => {
    const [host, entryPort, ...rest] = entry.trim().toLowerCase().split(':');
    if (rest.length > 0 || !LOOPBACK_NAMES.includes(host)) return false;
    return entryPort === undefined || entryPort === '*' || (port !== null && entryPort === String(port));
  });
}

export const W_RUN_008 = 'W-RUN-008';

/** Staging's warning for a member that may call others but whose allowlist does not list localhost. */
export function egressWarning(member: string, callees: readonly string[], allow: readonly string[]): string | null {
  if (callees.length === 0 || allowsMemberDoor(allow, null)) return null;
  return `warning ${W_RUN_008}: member ${member} may call ${callees.join(', ')}, but its capabilities.network.allow does not list localhost, so every call it makes fails`;
}
