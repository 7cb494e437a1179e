/**
 * The IPC messages between `mur run --roster` (the supervisor) and each member's process (docs/formations.md,
 * "Launch"). Tokens travel only here: never on disk, in argv or in the environment.
 */
import type { MintedToken } from '../auth/tokens.js';
import type { FormationEntry } from '../session/session-registry.js';

export interface MemberAnnounced {
  kind: 'announced';
  member: string;
  sessionId: string;
  url: string;
  pid: number;
  recordsDir: string;
}

export type MemberToSupervisor = MemberAnnounced | { kind: 'seated' } | { kind: 'launched'; taskId: string | null } | { kind: 'failed'; message: string };

export type SupervisorToMember =
  | {
      kind: 'seat';
      accept: MintedToken[];
      links: { member: string; url: string; token: string }[];
      /** Every member's door URL, as announced: the only member doors its egress admits (docs/formations.md, "Egress"). */
      doors: string[];
      /** The formation as the supervisor registers it: what the member's door answers at `/resources/records/formation`. */
      formation: FormationEntry;
    }
  | { kind: 'launch'; task: string | null };

export function isMemberMessage(value: unknown): value is MemberToSupervisor {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

export function isSupervisorMessage(value: unknown): value is SupervisorToMember {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'seat' || kind === 'launch';
}
