import type { TraceWriter } from '../../records/trace-writer.js';
import type { TaskEvents } from '../../tasks/task-events.js';
import type { TaskLifecycle } from '../../tasks/task-lifecycle.js';
import { type ConversationMessage, runtimeMessage } from '../conversation.js';
import type { ResultFile } from '../result-file.js';
import type { TaskContinuations } from '../task-continuations.js';
import type { TaskHooks } from '../task-hooks.js';
import type { Ending, TaskTurns } from './task-turns.js';

/** How an attempt's end came out: its ending written, or the task reopened with the hook's text as the next message. */
export type AttemptOutcome = { kind: 'written' } | { kind: 'reopened'; message: ConversationMessage };

/**
 * At an attempt's end (docs/agent-loop.md, "Hooks"): the on_task_end hooks run, their artifacts go out, and either a
 * hook reopens the task (the next attempt goes on, from inference turn 1) or the ending is written.
 */
export class AttemptEnd {
  constructor(
    private readonly deps: {
      lifecycle: TaskLifecycle;
      events: TaskEvents;
      trace: TraceWriter;
      hooks: TaskHooks;
      result: ResultFile;
      /** A formation member's continuations (formations/); absent outside a formation. */
      continuations: TaskContinuations | null;
    },
  ) {}

  async finish(turns: TaskTurns, ending: Ending): Promise<AttemptOutcome> {
    const { hooks, events, trace, lifecycle, continuations } = this.deps;
    const { task, attempt } = turns;
    if (hooks.hasTaskEndHooks) {
      const verdict = await hooks.afterAttempt(
        task,
        attempt.number,
        {
          state: ending.kind === 'complete' ? 'completed' : 'failed',
          answer: ending.kind === 'complete' ? ending.answer : null,
          status: ending.kind === 'fail' ? ending.message : null,
          noAnswer: ending.kind === 'fail' && ending.noAnswer === true,
        },
        attempt.reopens,
      );
      for (const artifact of verdict.artifacts) events.emit('artifact', { taskId: task.id, artifact });
      if (verdict.reopen !== null) {
        const number = turns.reopen();
        trace.write('task_reopened', { task_id: task.id, hook: verdict.reopen.hook, attempt: number });
        continuations?.reopened?.(task.id);
        lifecycle.reopened(task.id, `reopened by ${verdict.reopen.hook}: attempt ${number}`);
        return { kind: 'reopened', message: runtimeMessage(verdict.reopen.text) };
      }
    }
    await this.write(turns, ending);
    return { kind: 'written' };
  }

  /** The ending is written: a completion's answer (and out/result.txt), or the failure. */
  private async write(turns: TaskTurns, ending: Ending): Promise<void> {
    const { events, lifecycle, result, continuations } = this.deps;
    const taskId = turns.task.id;
    const noAnswerBelow = continuations?.noAnswerBelow(taskId) ?? [];
    if (ending.kind === 'complete') {
      // A completed task whose last call streamed nothing reports its whole reply as one final text frame.
      if (!ending.chunked && ending.answer !== '') events.emit('text', { taskId, text: ending.answer, final: true });
      result.write(ending.answer);
      await lifecycle.complete(taskId, ending.answer, { noAnswerBelow });
    } else if (ending.noAnswer) {
      result.write(`no answer: ${ending.message}`);
      await lifecycle.fail(taskId, ending.message, { noAnswer: true, noAnswerBelow });
    } else await lifecycle.fail(taskId, ending.message);
  }
}
