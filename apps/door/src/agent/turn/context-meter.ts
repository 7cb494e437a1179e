import type { TaskProgress } from '../../tools/tool-call.js';
import { type ConversationSize, estimateTokens } from '../compaction.js';
import type { ConversationMessage } from '../conversation.js';
import type { Usage } from '../driver.js';

/** The conversation's size as the last call measured it, and the estimate of the transcript at that moment. */
interface Measure {
  tokens: number;
  estimateAt: number;
}

/**
 * A task's conversation size (docs/agent-loop.md, "The size it is compared with"): what compaction and the spend
 * ceilings compare before a call, and session-status's `context` after one.
 */
export class ContextMeter {
  private measure: Measure | null = null;

  constructor(
    /** The system prompt and the tool inventory, sent with every call: part of every call's projected spend. */
    readonly fixedTokens: number,
    private readonly progress: TaskProgress,
  ) {}

  /**
   * The size before the next call: the last call's reported input + output grown by the estimate of what was added
   * since, or — before any report — the estimate of the transcript, the system prompt and the tools.
   */
  sizeNow(messages: readonly ConversationMessage[]): ConversationSize {
    const estimate = estimateTokens(messages);
    const { measure, fixedTokens } = this;
    if (!measure) return { tokens: estimate + fixedTokens, source: 'estimate', ratio: 1 };
    const ratio = measure.estimateAt > 0 ? measure.tokens / (measure.estimateAt + fixedTokens) : 1;
    return { tokens: measure.tokens + Math.ceil(Math.max(0, estimate - measure.estimateAt) * ratio), source: 'actual', ratio };
  }

  /** A compaction's estimate stands for the size until the next call reports one. */
  compacted(tokensAfter: number, messages: readonly ConversationMessage[]): void {
    this.measure = { tokens: tokensAfter, estimateAt: estimateTokens(messages) };
    this.progress.context = { usedTokens: tokensAfter, measuredBy: 'estimate' };
  }

  /** A call returned, before its answer joins `messages`: what session-status shows is its report, or the estimate. */
  called(usage: Usage | null, messages: readonly ConversationMessage[]): void {
    this.progress.context =
      usage?.input !== undefined
        ? { usedTokens: usage.input + (usage.output ?? 0), measuredBy: 'actual' }
        : { usedTokens: estimateTokens(messages), measuredBy: 'estimate' };
  }

  /** The call's answer joined `messages`: the next size grows from its report, or is estimated again without one. */
  answered(usage: Usage | null, messages: readonly ConversationMessage[]): void {
    this.measure = usage?.input !== undefined ? { tokens: usage.input + (usage.output ?? 0), estimateAt: estimateTokens(messages) } : null;
  }
}
