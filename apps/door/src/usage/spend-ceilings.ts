import type { MachineLedger } from './machine-ledger.js';
import type { Usage, UsageLedger } from './usage-ledger.js';

/** A call the ceilings did not let through: the task's status message and its `spend_refused` record. */
export interface SpendRefusal {
  message: string;
  ceiling: 'session' | 'machine';
  limit: number;
  spent: number;
  projected: number;
}

/** What one admitted call holds until it is settled: its machine reservation, if the machine ceiling covers the session. */
export interface SpendAdmission {
  reservation: string | null;
}

export interface SpendStatus {
  ceiling: number | 'none';
  machine: { tokens_today: number; ceiling: number } | 'none';
}

/**
 * The tokens a call spent as the ceilings count them: reported input plus output; nothing when it reported none; a
 * count below 0 (which no provider reports, and a harness's stream must not be able to) as 0.
 */
export const spentBy = (usage: Usage | null): number => Math.max(0, usage?.input ?? 0) + Math.max(0, usage?.output ?? 0);

/**
 * The spend ceilings (docs/agent-loop.md, "Spend ceilings"): inference.max_session_tokens against this session's
 * reported tokens, spend.machine_tokens_per_day against the host's day total in the machine ledger. A call is admitted
 * before it is made, on its projected cost, and settled after it with what it reported.
 */
export class SpendCeilings {
  constructor(
    private readonly limits: { session: number | null; machine: number | null },
    private readonly usage: UsageLedger,
    private readonly machine: MachineLedger,
  ) {}

  /** Whether a call projected to cost `projected` tokens may be made; a refusal reserves nothing. */
  admit(projected: number): { admission: SpendAdmission } | { refusal: SpendRefusal } {
    const cost = Math.max(0, Math.ceil(projected));
    const sessionLimit = this.limits.session;
    if (sessionLimit !== null) {
      const spent = this.usage.spentTokens();
      if (spent + cost > sessionLimit) {
        return {
          refusal: {
            ceiling: 'session',
            limit: sessionLimit,
            spent,
            projected: cost,
            message: `spend ceiling reached: inference.max_session_tokens is ${sessionLimit} and this session has spent ${spent} tokens; the next inference call would need about ${cost} more`,
          },
        };
      }
    }
    const machineLimit = this.limits.machine;
    if (machineLimit === null) return { admission: { reservation: null } };
    const { key, spent } = this.machine.reserve(cost, machineLimit);
    if (key !== null) return { admission: { reservation: key } };
    return {
      refusal: {
        ceiling: 'machine',
        limit: machineLimit,
        spent,
        projected: cost,
        message: `spend ceiling reached: spend.machine_tokens_per_day is ${machineLimit} and this machine has spent ${spent} tokens today (UTC); the next inference call would need about ${cost} more`,
      },
    };
  }

  /** The admitted call returned (or failed) having reported `usage`: the machine's day total counts it. */
  settle(admission: SpendAdmission, usage: Usage | null): void {
    const tokens = spentBy(usage);
    if (admission.reservation !== null) this.machine.settle(admission.reservation, tokens);
    else this.machine.add(tokens);
  }

  /** session-status's `spend.ceiling` and `spend.machine` (seed 004). */
  status(): SpendStatus {
    return {
      ceiling: this.limits.session ?? 'none',
      machine: this.limits.machine === null ? 'none' : { tokens_today: this.machine.tokensToday(), ceiling: this.limits.machine },
    };
  }
}
