/** A record entry named as the record and the compare page show it (docs/console.md, "Entries"). */
import type { TaskRecordEntry } from '@murmur/protocol';
import { stateLabel } from '../tasks/task-states.js';

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
    default: {
      const unreachable: never = e;
      return String(unreachable);
    }
  }
}
