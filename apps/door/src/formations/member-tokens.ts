import { randomBytes } from 'node:crypto';
import type { MintedToken } from '../auth/tokens.js';
import type { Roster } from './roster-loader.js';

/** What a member token reaches: an offer, its polls, its listing, and the cancel of a task taken too late. */
const MEMBER_TOKEN_SCOPES = ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask'] as const;

/** One member's seat: the tokens its door accepts from its callers, and the token it presents to each callee. */
export interface MemberSeatTokens {
  accept: MintedToken[];
  present: Map<string, string>;
}

/**
 * One token per reachability rule `from → to`, credential `member:<from>` on `to`'s door (docs/formations.md,
 * "Member tokens"). Minted by the supervisor once every door listens, held in memory and handed over IPC only.
 */
export function mintMemberTokens(roster: Roster): Map<string, MemberSeatTokens> {
  const seats = new Map<string, MemberSeatTokens>(roster.members.map((m) => [m.name, { accept: [], present: new Map() }]));
  for (const caller of roster.members) {
    for (const callee of caller.callees) {
      const token = `mur_${randomBytes(32).toString('base64url')}`;
      seats.get(callee)!.accept.push({ credential: `member:${caller.name}`, scopes: [...MEMBER_TOKEN_SCOPES], token });
      seats.get(caller.name)!.present.set(callee, token);
    }
  }
  return seats;
}
