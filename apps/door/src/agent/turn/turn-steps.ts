import type { TraceWriter } from '../../records/trace-writer.js';
import type { DoorLog } from '../../session/door-log.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TaskEvents } from '../../tasks/task-events.js';
import { TaskCanceledError, type TaskLifecycle } from '../../tasks/task-lifecycle.js';
import type { RunningTask } from '../../tasks/task-queue.js';
import type { DriverSelection } from '../../tools/runtime/index.js';
import type { ToolDispatcher } from '../../tools/tool-dispatcher.js';
import type { SpendCeilings } from '../../usage/spend-ceilings.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import { AnswerGovernors } from '../answer-governors.js';
import { ResultFile } from '../result-file.js';
import type { TaskContinuations } from '../task-continuations.js';
import { TaskHooks } from '../task-hooks.js';
import { AfterAnswer } from './after-answer.js';
import { AttemptEnd } from './attempt-end.js';
import { CallSpend } from './call-spend.js';
import { ToolRound } from './tool-round.js';

/** What the turn's steps need, on either transport. */
export interface TurnStepDeps {
  session: SessionContext;
  lifecycle: TaskLifecycle;
  events: TaskEvents;
  tools: ToolDispatcher;
  trace: TraceWriter;
  usage: UsageLedger;
  spend: SpendCeilings;
  /** The choice serving the next call: its output cap is part of a call's projected spend (none under transport: process). */
  selection: DriverSelection;
  log: DoorLog;
  /** A formation member's continuations (formations/); absent outside a formation. */
  continuations?: TaskContinuations | null;
}

/** The steps both transports share (docs/agent-loop.md, "The turn's pipeline"): the tool calls, after an answer, at an attempt's end. */
export interface TurnSteps {
  result: ResultFile;
  spend: CallSpend;
  toolRound: ToolRound;
  afterAnswer: AfterAnswer;
  attemptEnd: AttemptEnd;
}

export function turnSteps(deps: TurnStepDeps): TurnSteps {
  const { session, lifecycle, events, trace, tools, usage, selection } = deps;
  const { manifest } = session;
  const continuations = deps.continuations ?? null;
  const result = new ResultFile(session.recordsDir, (error) => deps.log.error('out/result.txt could not be written', { error: error.message }));
  const hooks = new TaskHooks({
    hooks: manifest.hooks,
    maxReopens: manifest.lifecycle.max_task_reopens,
    trace,
    run: (command, task, timeoutMs, stdin) => tools.runOperatorCommand(command, task, timeoutMs, stdin),
  });
  const governors = new AnswerGovernors({
    lifecycle: manifest.lifecycle,
    trace,
    runCommand: (command, task, timeoutMs) => tools.runOperatorCommand(command, task, timeoutMs),
    progress: (taskId, text) => lifecycle.progress(taskId, text),
  });
  return {
    result,
    spend: new CallSpend({ spend: deps.spend, usage, selection }),
    toolRound: new ToolRound({ session, lifecycle, events, tools, trace, hooks }),
    afterAnswer: new AfterAnswer({ lifecycle, manifest, governors, continuations }),
    attemptEnd: new AttemptEnd({ lifecycle, events, trace, hooks, result, continuations }),
  };
}

/**
 * A task's run on either transport, around its attempts: a cancel (or the session's end) becomes the task's cancel
 * once any ending held for it is written, and every ending accounts for the task's member calls.
 */
export async function asTaskRun(task: RunningTask, deps: Pick<TurnStepDeps, 'lifecycle' | 'continuations'>, attempts: () => Promise<void>): Promise<void> {
  try {
    await attempts();
  } catch (error) {
    if (task.signal.aborted) {
      // An ending held for an offer on its way (seed 004) stopped the task before it is written: the task keeps its
      // run slot until then.
      await deps.lifecycle.ending(task.id);
      throw new TaskCanceledError(task.id);
    }
    throw error;
  } finally {
    // Every other ending accounts for the task's calls at once: outstanding ones abandoned.
    deps.continuations?.settle(task.id);
  }
}
