import { outputCapOf } from '../../manifest/inference-choices.js';
import type { DriverSelection } from '../../tools/runtime/index.js';
import type { SpendAdmission, SpendCeilings, SpendRefusal } from '../../usage/spend-ceilings.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { DriverResponse } from '../driver.js';

/**
 * A call's spend (docs/agent-loop.md, "Spend ceilings"): admitted on its projected cost before it is made, settled
 * with what it reported after, and counted in the session's usage ledger — a turn's call and a compaction's summary alike.
 */
export class CallSpend {
  constructor(
    private readonly deps: {
      spend: SpendCeilings;
      usage: UsageLedger;
      /** The choice serving the next call: its output cap is part of a call's projected spend. */
      selection: DriverSelection;
    },
  ) {}

  /** Whether a call whose conversation is about `tokens` may be made: the projection adds the serving choice's output cap. */
  admit(tokens: number): { admission: SpendAdmission } | { refusal: SpendRefusal } {
    const choice = this.deps.selection.current;
    return this.deps.spend.admit(tokens + (choice ? outputCapOf(choice) : 0));
  }

  /** Runs an admitted call and settles its spend with what it reported; a call that failed reported nothing. */
  async settled(admission: SpendAdmission, call: () => Promise<DriverResponse>): Promise<DriverResponse> {
    let response: DriverResponse;
    try {
      response = await call();
    } catch (error) {
      this.deps.spend.settle(admission, null);
      throw error;
    }
    this.deps.spend.settle(admission, response.usage);
    this.deps.usage.record(response.usage);
    return response;
  }
}
