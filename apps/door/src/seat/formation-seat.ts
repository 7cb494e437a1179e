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
  private readonly doorOrigins = new Set<string>();

  constructor(
    readonly formation: string,
    readonly member: string,
    readonly callees: readonly string[],
    readonly callers: readonly string[],
    /** Every member of the roster, in roster order. */
    readonly members: readonly string[],
  ) {}

  /**
   * Sets the address and token of each callee, and the doors of every member, as the supervisor hands them over.
   * A callee's door is one of the formation's doors whatever list came with it.
   */
  seat(links: ReadonlyMap<string, MemberLink>, doors: readonly string[]): void {
    for (const [member, link] of links) if (this.callees.includes(member)) this.links.set(member, link);
    for (const url of [...doors, ...[...this.links.values()].map((l) => l.url)]) this.doorOrigins.add(new URL(url).origin);
  }

  /** The origins of the formation's member doors (`http://host:port`): what "lists localhost" admits for it. */
  get doors(): ReadonlySet<string> {
    return this.doorOrigins;
  }

  link(member: string): MemberLink | undefined {
    return this.links.get(member);
  }
}
