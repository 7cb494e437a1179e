import type { RecordFormationResponse } from '@murmur/protocol';

/** The formation as the supervisor registers it (the registry's FormationEntry), which the seat's message carries. */
export interface FormationPlacement {
  readonly name: string;
  readonly pid: number;
  readonly rosterFile: string;
  readonly entry: string;
  readonly members: readonly { member: string; sessionId: string; url: string; pid: number }[];
  readonly startedAt: string;
}

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
  private placed: FormationPlacement | null = null;

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
   * A callee's door is one of the formation's doors whatever list came with it. `placed` is the formation as the
   * supervisor registers it, which the record plane answers.
   */
  seat(links: ReadonlyMap<string, MemberLink>, doors: readonly string[], placed?: FormationPlacement): void {
    if (placed) this.placed = placed;
    for (const [member, link] of links) if (this.callees.includes(member)) this.links.set(member, link);
    for (const url of [...doors, ...[...this.links.values()].map((l) => l.url)]) this.doorOrigins.add(new URL(url).origin);
  }

  /** The origins of the formation's member doors (`http://host:port`): what "lists localhost" admits for it. */
  get doors(): ReadonlySet<string> {
    return this.doorOrigins;
  }

  /** The formation as this member's door serves it (`GET /resources/records/formation`); null until seated. */
  record(): RecordFormationResponse | null {
    const placed = this.placed;
    if (placed === null) return null;
    return {
      key: `${placed.name}-${placed.pid}`,
      name: placed.name,
      pid: placed.pid,
      entry: placed.entry,
      rosterFile: placed.rosterFile,
      startedAt: placed.startedAt,
      member: this.member,
      members: placed.members.map((m) => ({ member: m.member, sessionId: m.sessionId, url: m.url, pid: m.pid, entry: m.member === placed.entry })),
    };
  }

  link(member: string): MemberLink | undefined {
    return this.links.get(member);
  }
}
