import { fenceUntrusted } from '../auth/untrusted-fence.js';
import type { Manifest } from '../manifest/manifest.schema.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { CommandRun, OperatorCommandRunner, TaskProgress } from '../tools/tool-call.js';

/** What follows the model's answer: another round with the runtime's message, the task's completion, or its failure. */
export type AfterAnswer = { kind: 'continue'; text: string } | { kind: 'complete' } | { kind: 'fail'; message: string };

/** Bytes of each of a done check's streams the model is shown. */
const CHECK_OUTPUT_SHOWN = 16 * 1024;

function shownStream(text: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= CHECK_OUTPUT_SHOWN) return text;
  const kept = Buffer.from(text)
    .subarray(0, CHECK_OUTPUT_SHOWN)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}\n[… ${bytes - Buffer.byteLength(kept)} bytes cut]\n`;
}

const whatFailed = (run: CommandRun, timeoutSecs: number): string =>
  run.timedOut ? `did not finish within ${timeoutSecs}s and was stopped` : `exited ${run.exitCode}`;

/**
 * keep_working and done_check (docs/agent-loop.md, "When the model answers"): asked once the model answered and no
 * member answers are due, they decide whether the task goes on with a message of the runtime's, completes, or fails.
 * Their counts live on the task's progress, 0 at each task's start, for session-status.
 */
export class AnswerGovernors {
  constructor(
    private readonly deps: {
      lifecycle: Manifest['lifecycle'];
      trace: TraceWriter;
      runCommand: OperatorCommandRunner;
      /** A progress status on the task's stream. */
      progress: (taskId: string, text: string) => void;
    },
  ) {}

  /** `turnLeft`: whether another inference call is within inference.max_turns. */
  async afterAnswer(
    task: { id: string; signal: AbortSignal },
    progress: TaskProgress,
    turn: number,
    turnLeft: { left: boolean; maxTurns: number },
  ): Promise<AfterAnswer> {
    const { keep_working: keepWorking, done_check: doneCheck } = this.deps.lifecycle;
    if (keepWorking && progress.keepWorkingUsed < keepWorking.limit && turnLeft.left) {
      progress.keepWorkingUsed += 1;
      this.deps.trace.write('keep_working', { task_id: task.id, turn, used: progress.keepWorkingUsed, left: keepWorking.limit - progress.keepWorkingUsed });
      return { kind: 'continue', text: keepWorking.message };
    }
    if (!doneCheck) return { kind: 'complete' };
    this.deps.progress(task.id, 'done check: running');
    const run = await this.deps.runCommand(doneCheck.command, task, doneCheck.timeout_secs * 1000);
    const passed = !run.timedOut && run.exitCode === 0;
    const sendBack = !passed && progress.doneCheckUsed < doneCheck.limit && turnLeft.left;
    if (sendBack) progress.doneCheckUsed += 1;
    const left = doneCheck.limit - progress.doneCheckUsed;
    this.deps.trace.write('done_check', {
      task_id: task.id,
      turn,
      exit_code: run.exitCode,
      timed_out: run.timedOut,
      duration_ms: run.durationMs,
      outcome: passed ? 'passed' : sendBack ? 'sent_back' : 'exhausted',
      used: progress.doneCheckUsed,
      left,
    });
    if (passed) return { kind: 'complete' };
    const failed = whatFailed(run, doneCheck.timeout_secs);
    if (!sendBack) {
      const why = turnLeft.left
        ? `the task used all ${doneCheck.limit} round${doneCheck.limit === 1 ? '' : 's'} it allows`
        : `the task has no inference turn left (inference.max_turns is ${turnLeft.maxTurns})`;
      return { kind: 'fail', message: `done_check failed: its command ${failed} and ${why}` };
    }
    const output = fenceUntrusted('done-check', `Stdout:\n${shownStream(run.stdout)}\nStderr:\n${shownStream(run.stderr)}\n`);
    const more = left === 0 ? 'a failing check from now on fails the task' : `${left} more failing check${left === 1 ? '' : 's'} may send you back`;
    return {
      kind: 'continue',
      text: `[done-check] The task is not done yet: the check ${failed}. Its output:\n${output}\n[done-check] Fix what it reports, then give your final answer again (${more}).`,
    };
  }
}
