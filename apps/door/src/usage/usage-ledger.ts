/** Token counts of one inference call, as the provider reported them; a count it did not report is absent. */
export interface Usage {
  input?: number;
  output?: number;
  /** Input tokens read from the provider's cache. */
  cached?: number;
  /** Input tokens written to the provider's cache. */
  cacheWrite?: number;
}

type Count = number | 'unknown';

export interface UsageTotals {
  input: Count;
  output: Count;
  cached: Count;
  cacheWrite: Count;
  /** Inference calls that carried no count at all. */
  unreportedCalls: number;
}

const MEMBERS = ['input', 'output', 'cached', 'cacheWrite'] as const;

/**
 * The session's token usage over its inference records (seed 004, session-status "tokens"): each member is the sum
 * of what the calls reported, or "unknown" while no call has carried it.
 */
export class UsageLedger {
  private readonly sums: Partial<Record<(typeof MEMBERS)[number], number>> = {};
  private unreported = 0;

  record(usage: Usage | null): void {
    if (usage === null || MEMBERS.every((m) => usage[m] === undefined)) {
      this.unreported += 1;
      return;
    }
    for (const member of MEMBERS) {
      const value = usage[member];
      if (value !== undefined && value >= 0) this.sums[member] = (this.sums[member] ?? 0) + value;
    }
  }

  totals(): UsageTotals {
    const count = (member: (typeof MEMBERS)[number]): Count => this.sums[member] ?? 'unknown';
    return { input: count('input'), output: count('output'), cached: count('cached'), cacheWrite: count('cacheWrite'), unreportedCalls: this.unreported };
  }

  /** The tokens the spend ceilings count: input and output as reported (cached input is part of input). */
  spentTokens(): number {
    return (this.sums.input ?? 0) + (this.sums.output ?? 0);
  }
}
