import { allowsMemberDoor, listsLocalhost } from '../egress/member-egress.js';

export { allowsMemberDoor };

export const W_RUN_008 = 'W-RUN-008';

/** Staging's warning for a member that may call others but whose allowlist does not list localhost. */
export function egressWarning(member: string, callees: readonly string[], allow: readonly string[]): string | null {
  if (callees.length === 0 || listsLocalhost(allow, null)) return null;
  return `warning ${W_RUN_008}: member ${member} may call ${callees.join(', ')}, but its capabilities.network.allow does not list localhost, so every call it makes fails`;
}
