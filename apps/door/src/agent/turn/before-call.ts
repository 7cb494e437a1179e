import { contextBudget } from '../../manifest/inference-choices.js';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { TaskLifecycle } from '../../tasks/task-lifecycle.js';
import type { DriverSelection } from '../../tools/runtime/index.js';
import type { SpendAdmission } from '../../usage/spend-ceilings.js';
import { Compactor, type SummaryOutcome } from '../compaction.js';
import type { CallSpend } from './call-spend.js';
import type { ContextMeter } from './context-meter.js';
import type { Ending, TaskTurns } from './task-turns.js';

/** Whether the next call may be made, and its spend's admission; or how the attempt ends instead. */
export type Admitted = { kind: 'call'; admission: SpendAdmission } | { kind: 'end'; ending: Ending };

const failing = (message: string): Admitted => ({ kind: 'end', ending: { kind: 'fail', message } });

/**
 * Before a call (docs/agent-loop.md, "Governors"), in order: inference.max_turns, compaction past the threshold of the
 * serving choice's budget, and the spend ceilings. An admitted call counts as a turn, and the stream shows it.
 */
export class BeforeCall {
  private readonly compaction: { threshold: number; keep_turns: number };

  constructor(
    private readonly deps: {
      manifest: Manifest;
      lifecycle: TaskLifecycle;
      trace: TraceWriter;
      selection: DriverSelection;
      spend: CallSpend;
    },
  ) {
    this.compaction = Compactor.settingsOf(deps.manifest);
  }

  /** A task's compactor; `summarize` is one summary call of its driver, made before call `turn`. */
  compactorFor(taskId: string, summarize: (transcript: string, turn: number) => Promise<SummaryOutcome>): Compactor {
    return new Compactor({
      settings: this.compaction,
      trace: this.deps.trace,
      started: () => this.deps.lifecycle.progress(taskId, 'compacting the conversation'),
      summarize,
    });
  }

  async admit(turns: TaskTurns, meter: ContextMeter, compactor: Compactor): Promise<Admitted> {
    const { task } = turns;
    if (!turns.turnLeft) return failing(`max_turns exceeded: the task used all ${turns.maxTurns} inference turns`);
    const tokens = await this.compact(turns, meter, compactor);
    // Seed 001: a task whose compaction failed ends `failed` with `session ended`; the record says why.
    if (tokens === null) return failing('session ended');
    // Seed 001's spend refusal: a call whose projected cost (the conversation and the output cap it sends) would
    // pass a ceiling is not made (docs/agent-loop.md, "Spend ceilings").
    const admitted = this.deps.spend.admit(tokens);
    if ('refusal' in admitted) {
      const { refusal } = admitted;
      this.deps.trace.write('spend_refused', {
        task_id: task.id,
        turn: turns.turn + 1,
        ceiling: refusal.ceiling,
        limit: refusal.limit,
        spent: refusal.spent,
        projected: refusal.projected,
      });
      return failing(refusal.message);
    }
    const turn = turns.countCall();
    this.deps.lifecycle.progress(task.id, `inference turn ${turn}`);
    return { kind: 'call', admission: admitted.admission };
  }

  /**
   * Compaction (docs/agent-loop.md): past the threshold of the next call's budget, the conversation shrinks first. The
   * conversation's size in tokens for the call's projection, or null when the compaction failed.
   */
  private async compact(turns: TaskTurns, meter: ContextMeter, compactor: Compactor): Promise<number | null> {
    const size = meter.sizeNow(turns.messages);
    const budget = contextBudget(this.deps.selection.current);
    if (!budget) return size.tokens;
    const compacted = await compactor.compact(turns.task.id, turns.turn + 1, turns.messages, size, budget, meter.fixedTokens);
    if (compacted.kind === 'failed') return null;
    if (compacted.kind === 'not-needed') return size.tokens;
    meter.compacted(compacted.tokensAfter, turns.messages);
    return compacted.tokensAfter;
  }
}
