/**
 * Two runs compared for the compare page (docs/console.md, "Compare two runs"): each task's record (or one attempt
 * of it) as a run, the runs' ends facing each other, their steps aligned (record-align.ts), every pair compared
 * (record-diff.ts), and the runs' totals.
 */
import type { TaskRecordEntry, TaskRecordSummary } from '@murmur/protocol';
import { type AlignedStep, alignSteps, attemptCount, type RunView, runView } from './record-align.js';
import { compareEntries, compareTotals, runTotals, type StepComparison, type TotalComparison } from './record-diff.js';

export interface ComparedRecord {
  task: TaskRecordSummary;
  entries: readonly TaskRecordEntry[];
}

interface ComparedStep extends AlignedStep {
  comparison: StepComparison;
}

export interface RunComparison {
  opening: StepComparison;
  answer: StepComparison;
  ending: StepComparison;
  steps: ComparedStep[];
  totals: TotalComparison[];
  /** How many steps read unchanged, changed, or one side's alone. */
  counts: Record<StepComparison['verdict'], number>;
}

/** One side as a run, or the sentence saying why it cannot be: an attempt the record does not have. */
export function sideOf(record: ComparedRecord, attempt: number | null): { run: RunView; durationMs: number | null } | { problem: string } {
  const run = runView(record.entries, attempt);
  if (!run) return { problem: `Task ${record.task.taskId} has no attempt ${attempt}: its record holds ${attemptCount(record.entries)}.` };
  return { run, durationMs: attempt === null ? record.task.durationMs : attemptDurationMs(run) };
}

/** An attempt's duration: from its opening (or first step) to its ending; null while it runs. @unit ms */
function attemptDurationMs(run: RunView): number | null {
  const start = run.opening?.at ?? run.steps[0]?.at;
  if (!start || !run.ending) return null;
  return Math.max(0, Date.parse(run.ending.at) - Date.parse(start));
}

export function compareRuns(a: { run: RunView; durationMs: number | null }, b: { run: RunView; durationMs: number | null }): RunComparison {
  const steps = alignSteps(a.run.steps, b.run.steps).map((row) => ({ ...row, comparison: compareEntries(row.a, row.b) }));
  const counts = { unchanged: 0, changed: 0, 'only-a': 0, 'only-b': 0 };
  for (const step of steps) counts[step.comparison.verdict]++;
  return {
    opening: compareEntries(a.run.opening, b.run.opening),
    answer: compareEntries(a.run.answer, b.run.answer),
    ending: compareEntries(a.run.ending, b.run.ending),
    steps,
    totals: compareTotals(runTotals(a.run.steps, a.durationMs), runTotals(b.run.steps, b.durationMs)),
    counts,
  };
}
