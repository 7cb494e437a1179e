/**
 * The model → the rows the virtual list renders: each task's header, then (unless collapsed) a "more" row when
 * entries were dropped, then its entries. A row that did not change keeps its identity, so Svelte's keyed `each`
 * skips it; a changed row is a new object. Long texts and tool output are trimmed here, once per frame rather
 * than once per chunk.
 */
import { isTerminalState } from '@murmur/protocol';
import type { TaskLog, TimelineLimits, TimelineModel } from './timeline-reducer.js';
import type { TimelineRow, ToolEntry } from './timeline-rows.js';

/** Whether a task shows collapsed: the operator's choice, else finished and older than the newest `keepOpen`. */
export function isCollapsed(log: TaskLog, index: number, taskCount: number, keepOpen: number): boolean {
  if (log.userCollapsed !== null) return log.userCollapsed;
  const finished = log.state !== null && isTerminalState(log.state);
  return finished && index < taskCount - keepOpen;
}

/** A task's position in arrival order, -1 when the model does not hold it. */
export function taskIndex(model: TimelineModel, taskId: string): number {
  let i = 0;
  for (const id of model.tasks.keys()) {
    if (id === taskId) return i;
    i += 1;
  }
  return -1;
}

/** Every row, in order. Takes new snapshots of the entries that changed (and clears their dirty marks). */
export function materializeRows(model: TimelineModel, limits: Pick<TimelineLimits, 'keepOpen' | 'maxTextChars'>): TimelineRow[] {
  const rows: TimelineRow[] = [];
  let index = 0;
  for (const log of model.tasks.values()) {
    const collapsed = isCollapsed(log, index, model.tasks.size, limits.keepOpen);
    index += 1;
    snapshotEntries(log, limits.maxTextChars);
    const entryCount = log.cells.length + log.dropped;
    if (log.changed || log.row === null || log.row.collapsed !== collapsed || log.row.entryCount !== entryCount) {
      log.row = {
        kind: 'task',
        key: log.taskId,
        taskId: log.taskId,
        contextId: log.contextId,
        state: log.state,
        statusText: log.statusText,
        firstAt: log.firstAt,
        lastAt: log.lastAt,
        entryCount,
        collapsed,
      };
      log.changed = false;
    }
    rows.push(log.row);
    if (collapsed) continue;
    if (log.dropped > 0) rows.push({ kind: 'more', key: `${log.taskId}#more`, taskId: log.taskId, omitted: log.dropped });
    for (const cell of log.cells) rows.push(cell.entry);
  }
  return rows;
}

/** Turns a task's changed drafts into new snapshots, trimming long texts to their last `max` characters. */
function snapshotEntries(log: TaskLog, max: number): void {
  for (const cell of log.cells) {
    if (!cell.dirty) continue;
    cell.dirty = false;
    const draft = cell.draft;
    if ((draft.kind === 'text' || draft.kind === 'thinking') && draft.text.length > max) {
      draft.omitted += draft.text.length - max;
      draft.text = draft.text.slice(-max);
    }
    if (draft.kind === 'tool') trimOutput(draft, max);
    cell.entry = draft.kind === 'tool' ? { ...draft, output: [...draft.output] } : { ...draft };
  }
}

/** Drops a tool's oldest output until at most `max` characters remain, counting what went. */
export function trimOutput(draft: ToolEntry, max: number): void {
  let total = 0;
  for (const chunk of draft.output) total += chunk.text.length;
  while (total > max && draft.output.length > 0) {
    const first = draft.output[0];
    const excess = total - max;
    if (first.text.length <= excess) {
      draft.output.shift();
      total -= first.text.length;
      draft.omitted += first.text.length;
    } else {
      draft.output[0] = { stream: first.stream, text: first.text.slice(excess) };
      total -= excess;
      draft.omitted += excess;
    }
  }
}
