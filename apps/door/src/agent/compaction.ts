import type { ContextBudget } from '../manifest/inference-choices.js';
import type { Manifest } from '../manifest/manifest.schema.js';
import type { TraceWriter } from '../records/trace-writer.js';
import { type ConversationMessage, runtimeMessage } from './conversation.js';

/** Characters per token of the runtime's own estimate (docs/agent-loop.md, session-status "context"). */
export const CHARS_PER_TOKEN = 4;

/** The characters of a message a provider is sent (a tool result's runtime account — exit code, streams — is not). */
function sentChars(message: ConversationMessage): number {
  switch (message.role) {
    case 'user':
      return message.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : c.base64.length), 0);
    case 'assistant':
      return (
        message.text.length +
        message.thinking.reduce((n, t) => n + t.text.length, 0) +
        message.toolCalls.reduce((n, c) => n + c.id.length + c.name.length + JSON.stringify(c.input).length, 0)
      );
    case 'tool':
      return message.results.reduce((n, r) => n + r.toolCallId.length + r.content.length, 0);
  }
}

/** The runtime's estimate of a transcript's tokens: what a provider is sent of it, 4 characters a token. */
export function estimateTokens(messages: readonly ConversationMessage[]): number {
  return Math.ceil(messages.reduce((n, m) => n + sentChars(m), 0) / CHARS_PER_TOKEN);
}

/** The conversation's size before the next call: the provider's count of the last call grown by the estimate since, or the estimate. */
export interface ConversationSize {
  tokens: number;
  source: 'actual' | 'estimate';
  /** Tokens the provider counts per estimated token (from the last measured call; 1 without one): scales estimates. */
  ratio: number;
}

/** What the model is asked when older turns are summarised; the runtime's words, as the system prompt of that one call. */
export const COMPACTION_SYSTEM =
  'You compact the conversation of an agent that is still working on its task. Summarise the transcript you are given so the agent can go on from the summary alone: what the task asked, what was done and found (files, commands, results, errors), what was decided, and what is still open. Keep names, paths, numbers and identifiers exactly. Write the summary only, as plain text.';

/** The message that stands for the summarised turns. */
const summaryMessage = (summary: string): string =>
  `[compaction] The conversation before this point was compacted to save context. A summary of it:\n${summary}`;

const elidedOutput = (chars: number): string => `[tool output elided by compaction: ${chars} characters]`;
const isElidedOutput = (text: string): boolean => text.startsWith('[tool output elided by compaction: ');

/** Tools whose result names work still outstanding (a member's call, a delegation): never elided or summarised. */
const OUTSTANDING_WORK_TOOLS = new Set(['call-member', 'delegate-task']);

/** The summary the model wrote, or why none could be had. */
export type SummaryOutcome = { kind: 'summary'; text: string } | { kind: 'failed'; reason: string };

export type CompactionOutcome = { kind: 'not-needed' } | { kind: 'compacted'; tokensAfter: number } | { kind: 'failed'; reason: string };

/** One line a message contributes to the transcript the model summarises. */
function transcriptLine(message: ConversationMessage): string {
  switch (message.role) {
    case 'user':
      return `[${message.origin === 'task' ? 'task' : message.origin}] ${message.content.map((c) => (c.type === 'text' ? c.text : `(an image, ${c.mediaType})`)).join('\n')}`;
    case 'assistant':
      return [`[assistant] ${message.text}`, ...message.toolCalls.map((c) => `[assistant calls ${c.name}] ${JSON.stringify(c.input)}`)].join('\n');
    case 'tool':
      return message.results.map((r) => `[${r.name} result${r.isError ? ', an error' : ''}] ${r.content}`).join('\n');
  }
}

/**
 * Compaction (docs/agent-loop.md, "Compaction"): before a call whose conversation is past `threshold` of its budget,
 * the older turns' tool output is elided and their thinking dropped; if that is not enough, the older turns are
 * summarised by the model into one message. The task's own message and the latest `keep_turns` turns stay whole.
 */
export class Compactor {
  constructor(
    private readonly deps: {
      settings: { threshold: number; keep_turns: number };
      trace: TraceWriter;
      /** A compaction begins (the stream shows it). */
      started: () => void;
      /** One summary call, made before call `turn`. */
      summarize: (transcript: string, turn: number) => Promise<SummaryOutcome>;
    },
  ) {}

  static settingsOf(manifest: Manifest): { threshold: number; keep_turns: number } {
    return manifest.inference?.compaction ?? { threshold: 0.8, keep_turns: 4 };
  }

  /** Compacts `messages` in place when `size` is past the threshold of `budget`. `fixedTokens`: the system prompt and the tools. */
  async compact(
    taskId: string,
    turn: number,
    messages: ConversationMessage[],
    size: ConversationSize,
    budget: ContextBudget,
    fixedTokens: number,
  ): Promise<CompactionOutcome> {
    const { threshold, keep_turns: keepTurns } = this.deps.settings;
    const limit = threshold * budget.budgetTokens;
    if (size.tokens <= limit) return { kind: 'not-needed' };
    this.deps.started();
    const startedMs = performance.now();
    const sizeOf = () => Math.ceil((estimateTokens(messages) + fixedTokens) * size.ratio);
    const cut = this.keptFrom(messages, keepTurns);
    let elided = 0;
    for (let i = 1; i < cut; i++) elided += this.elide(messages[i]);
    let summarized = 0;
    let reason: string | null = null;
    if (sizeOf() > limit) {
      const older = messages.slice(1, cut);
      if (older.length === 0) reason = `only the task's message and the latest ${keepTurns} turns are left, and they alone are past the threshold`;
      else {
        // The transcript to summarise is held within half the budget, its newest part kept: the call must fit too.
        const maxChars = Math.max(1000, Math.floor((budget.budgetTokens / 2) * CHARS_PER_TOKEN));
        const full = older.map(transcriptLine).join('\n\n');
        const transcript = full.length <= maxChars ? full : `[… ${full.length - maxChars} earlier characters left out]\n${full.slice(full.length - maxChars)}`;
        const summary = await this.deps.summarize(transcript, turn);
        if (summary.kind === 'failed') reason = `the summary could not be made: ${summary.reason}`;
        else {
          messages.splice(1, cut - 1, runtimeMessage(summaryMessage(summary.text)));
          summarized = older.length;
        }
      }
    }
    const tokensAfter = sizeOf();
    if (reason === null && tokensAfter > budget.budgetTokens)
      reason = `the conversation is still about ${tokensAfter} tokens, past its budget of ${budget.budgetTokens}`;
    this.deps.trace.write('compaction', {
      task_id: taskId,
      turn,
      tokens_before: size.tokens,
      tokens_before_source: size.source,
      tokens_after: tokensAfter,
      budget_tokens: budget.budgetTokens,
      threshold,
      elided_results: elided,
      summarized_messages: summarized,
      duration_ms: Math.round((performance.now() - startedMs) * 100) / 100,
      ...(reason === null ? {} : { failed: reason }),
    });
    return reason === null ? { kind: 'compacted', tokensAfter } : { kind: 'failed', reason };
  }

  /** The index of the first message of the latest `keepTurns` turns (each turn opens with an assistant message). */
  private keptFrom(messages: readonly ConversationMessage[], keepTurns: number): number {
    let seen = 0;
    for (let i = messages.length - 1; i > 0; i--) {
      if (messages[i].role === 'assistant' && ++seen === keepTurns) return i;
    }
    return 1;
  }

  /** Elides one older message's tool output and drops its thinking; the tool results it elided. */
  private elide(message: ConversationMessage): number {
    if (message.role === 'assistant') {
      message.thinking = [];
      return 0;
    }
    if (message.role !== 'tool') return 0;
    let count = 0;
    message.results = message.results.map((r) => {
      if (OUTSTANDING_WORK_TOOLS.has(r.name) || r.outcome.workId !== null || isElidedOutput(r.content)) return r;
      count += 1;
      const content = elidedOutput(r.content.length);
      return { ...r, content, outcome: { ...r.outcome, content, stdout: '', stderr: '' } };
    });
    return count;
  }
}
