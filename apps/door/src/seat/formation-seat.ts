/** Where a callee's door is and the token this member presents to it; known only once the formation has started. */
export interface MemberLink {
  readonly url: string;
  readonly token: string;
}

/**
 * A session's place in a formation (docs/formations.md): which formation, which member, whom it may call (roster
 * order) and who may call it. Fixed at staging, so the tool inventory is decided before the door starts; the
 * callees' addresses and tokens arrive with the member's seat, after every member listens.
 */
export class FormationSeat {
  private readonly links = new Map<string, MemberLink>();

  constructor(
    readonly formation: string,
    readonly member: string,
    readonly callees: readonly string[],
    readonly callers: readonly string[],
    /** Every member of the roster, in roster order. */
    readonly members: readonly string[],
  ) {}

  /** Sets the address and token of each callee, as the supervisor hands them over. */
  seat(links: ReadonlyMap<string, MemberLink>): void {
    for (const [member, link] of links) if (this.callees.includes(member)) this.links.set(member, link);
  }

  link(member: string): MemberLink | undefined {
    return this.links.get(member);
  }
}
