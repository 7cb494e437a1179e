import { MURMUR_STATE_WORD, renderFence, TERMINAL_STATES } from '@murmur/protocol';
import type { TaskView } from './task-view.js';

/** The "Referenced tasks" block the agent reads after the parts, as each task stood when the message arrived (seed 000). */
export async function renderReferencedTasks(ids: readonly string[], view: TaskView): Promise<string> {
  const rows = await Promise.all(ids.map((id) => view.read(id)));
  const lines = ids.map((id, i) => {
    const row = rows[i];
    if (!row) return `- ${id}: not a task this capsule holds`;
    const word = MURMUR_STATE_WORD[row.state];
    if (row.state === 'TASK_STATE_COMPLETED' && row.response !== null) return `- ${id}: ${word}\n${renderFence('response', row.response)}`;
    if (TERMINAL_STATES.has(row.state) && row.statusText !== null) return `- ${id}: ${word}: ${row.statusText.replace(/\s*\n\s*/g, ' ')}`;
    return `- ${id}: ${word}`;
  });
  return `Referenced tasks:\n${lines.join('\n')}`;
}
