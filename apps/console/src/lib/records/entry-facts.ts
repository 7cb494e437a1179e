/**
 * What the record's governor, hook and delegation entries say, as named facts (docs/console.md, "Entries"): the task
 * page's trace shows them in a span's detail, the record lists them, the compare page compares them field by field.
 */
import type { TaskRecordEntry } from '@murmur/protocol';

/** The entries whose facts are read here: every kind but the operator's and the model's own. */
export type GovernorEntry = Extract<
  TaskRecordEntry,
  {
    kind:
      | 'input-timeout'
      | 'inference-retry'
      | 'delegation'
      | 'keep-working'
      | 'done-check'
      | 'compaction'
      | 'trimmed'
      | 'spend-refused'
      | 'tool-denied'
      | 'hook';
  }
>;

const GOVERNOR_KINDS: ReadonlySet<TaskRecordEntry['kind']> = new Set<GovernorEntry['kind']>([
  'input-timeout',
  'inference-retry',
  'delegation',
  'keep-working',
  'done-check',
  'compaction',
  'trimmed',
  'spend-refused',
  'tool-denied',
  'hook',
]);

export const isGovernorEntry = (e: TaskRecordEntry): e is GovernorEntry => GOVERNOR_KINDS.has(e.kind);

export interface EntryFact {
  name: string;
  value: string;
  /** A text to diff and to show as a block (a reason, a hook's artifact), not a short value. */
  text: boolean;
}

const fact = (name: string, value: string | number | boolean, text = false): EntryFact => ({
  name,
  value: typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value),
  text,
});

/** A done check's outcome in words. */
export const DONE_CHECK_OUTCOMES = { passed: 'passed', sent_back: 'sent back to work', exhausted: 'sent back no more: its runs are used up' } as const;

export function entryFacts(e: GovernorEntry): EntryFact[] {
  switch (e.kind) {
    case 'input-timeout':
      return [fact('waited', `${e.waitedSecs} s`)];
    case 'inference-retry':
      return [fact('turn', e.turn), fact('attempt', e.attempt), fact('delay', `${e.delayMs} ms`), fact('reason', e.reason, true)];
    case 'delegation':
      return [
        fact('capsule', e.capsule),
        fact('status', e.status.replace(/_/g, ' ')),
        fact('child task', e.childTaskId),
        fact('child session', e.childSessionId),
        fact('delegation', e.delegationId),
      ];
    case 'keep-working':
      return [fact('after turn', e.turn), fact('nudges used', e.used), fact('nudges left', e.left)];
    case 'done-check':
      return [
        fact('outcome', DONE_CHECK_OUTCOMES[e.outcome]),
        fact('exit code', e.exitCode ?? 'none'),
        fact('timed out', e.timedOut),
        fact('after turn', e.turn),
        fact('runs used', e.used),
        fact('runs left', e.left),
      ];
    case 'compaction':
      return [
        fact('before turn', e.turn),
        fact('tokens before', `${e.tokensBefore.toLocaleString('en-US')} (${e.tokensBeforeSource === 'actual' ? 'reported' : 'estimated'})`),
        fact('tokens after', e.tokensAfter.toLocaleString('en-US')),
        fact('budget', `${e.budgetTokens.toLocaleString('en-US')} tokens`),
        fact('results elided', e.elidedResults),
        fact('messages summarized', e.summarizedMessages),
        ...(e.failed !== null ? [fact('failed', e.failed, true)] : []),
      ];
    case 'trimmed':
      return [
        fact('before turn', e.turn),
        fact('characters elided', e.elidedChars.toLocaleString('en-US')),
        fact('budget', `${e.budgetChars.toLocaleString('en-US')} characters`),
      ];
    case 'spend-refused':
      return [
        fact('turn', e.turn),
        fact('ceiling', e.ceiling),
        fact('limit', `${e.limit.toLocaleString('en-US')} tokens`),
        fact('spent', e.spent.toLocaleString('en-US')),
        fact('projected', e.projected.toLocaleString('en-US')),
      ];
    case 'tool-denied':
      return [fact('tool', e.tool), fact('hook', e.hook), fact('tool call', e.toolCallId), fact('reason', e.reason, true)];
    case 'hook':
      return [fact('hook', e.hook), fact(e.outcome === 'artifact' ? 'artifact' : 'why it had no say', e.text, true)];
    default: {
      const unreachable: never = e;
      throw new TypeError(`unknown entry ${JSON.stringify(unreachable)}`);
    }
  }
}
