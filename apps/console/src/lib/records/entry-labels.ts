/** A record entry named as the record and the compare page show it (docs/console.md, "Entries"). */
import type { TaskRecordEntry } from '@murmur/protocol';
import { stateLabel } from '../tasks/task-states.js';
import { DONE_CHECK_OUTCOMES } from './entry-facts.js';

export function entryLabel(e: TaskRecordEntry): string {
  switch (e.kind) {
    case 'input':
      return "Operator's message";
    case 'turn':
      return `Turn ${e.turn}`;
    case 'tool-call':
      // A skill's call reads as any call, naming the artifact it read (docs/artifacts.md, "Skills").
      if (e.skill !== undefined) return `Skill call ${e.tool} (${e.skill})`;
      return `Tool call ${e.tool}${e.exitCode !== null ? ` (exit ${e.exitCode})` : ''}`;
    case 'input-required':
      return 'Asked for input';
    case 'reply':
      return "Operator's reply";
    case 'answer':
      return 'Answer';
    case 'end':
      return `Ended ${stateLabel(e.state)}`;
    case 'reopen':
      return `Reopened by ${e.hook}: attempt ${e.attempt}`;
    // A harness run's records (docs/harness.md): each run of the harness starts and ends in the record.
    case 'harness-start':
      return `Harness ${e.harness} started (${e.sessionMode === 'new' ? 'new session' : 'resumed session'})`;
    case 'harness-end':
      return `Harness ${e.harness} ${e.outcome}`;
    case 'harness-session-forgotten':
      return `Harness session forgotten (${e.requestedBy === 'a2a' ? 'forgetSession' : 'mur run --forget-session'})`;
    case 'input-timeout':
      return `No reply within ${e.waitedSecs} s: back to work`;
    case 'inference-retry':
      return `Turn ${e.turn} retried (attempt ${e.attempt})`;
    case 'delegation':
      return `Delegation to ${e.capsule} (${e.status.replace(/_/g, ' ')})`;
    case 'keep-working':
      return `keep_working nudge after turn ${e.turn}`;
    case 'done-check':
      return `Done check: ${DONE_CHECK_OUTCOMES[e.outcome]}`;
    case 'compaction':
      return e.failed === null ? `Compaction before turn ${e.turn}` : `Compaction before turn ${e.turn} failed`;
    case 'trimmed':
      return `Conversation trimmed before turn ${e.turn}`;
    case 'spend-refused':
      return `Spend refused by the ${e.ceiling} ceiling`;
    case 'tool-denied':
      return `Tool call ${e.tool} denied by ${e.hook}`;
    case 'hook':
      return e.outcome === 'artifact' ? `Hook ${e.hook}: artifact` : `Hook ${e.hook} had no say`;
    default: {
      const unreachable: never = e;
      return String(unreachable);
    }
  }
}

type HarnessEntry = Extract<TaskRecordEntry, { kind: 'harness-start' | 'harness-end' | 'harness-session-forgotten' }>;

/** What the record shows beside a harness entry's label: the model, the exit code and turns, the harness session's id. */
export function harnessFacts(e: HarnessEntry): string {
  const session = e.harnessSessionId === null ? 'session not yet named' : `session ${e.harnessSessionId}`;
  switch (e.kind) {
    case 'harness-start':
      return `model ${e.model} · ${session}`;
    case 'harness-end':
      return [e.exitCode === null ? 'no exit code' : `exit ${e.exitCode}`, `${e.turns} ${e.turns === 1 ? 'turn' : 'turns'}`, session].join(' · ');
    case 'harness-session-forgotten':
      return `dropped ${session}`;
    default: {
      const unreachable: never = e;
      return String(unreachable);
    }
  }
}
