import type { OnModuleDestroy } from '@nestjs/common';
import type { TraceWriter } from '../records/trace-writer.js';
import type { DoorLog } from '../session/door-log.js';
import type { SessionContext } from '../session/session-context.js';
import type { TaskEvents } from '../tasks/task-events.js';
import { TaskCanceledError, type TaskLifecycle } from '../tasks/task-lifecycle.js';
import type { RunningTask, TaskRunner } from '../tasks/task-queue.js';
import type { DriverSelection } from '../tools/runtime/index.js';
import type { ToolDispatcher } from '../tools/tool-dispatcher.js';
import type { SpendAdmission, SpendCeilings } from '../usage/spend-ceilings.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import { AnswerGovernors } from './answer-governors.js';
import { CONVERSATION_TEXT_BUDGET, keepWithinBudget } from './conversation-budget.js';
import type { TaskDriver, ToolSpec } from './driver.js';
import { ResultFile } from './result-file.js';
import { systemPrompt } from './system-prompt.js';
import type { TaskContinuations } from './task-continuations.js';
import { TaskHooks } from './task-hooks.js';
import { AfterAnswer } from './turn/after-answer.js';
import { AttemptEnd } from './turn/attempt-end.js';
import { BeforeCall } from './turn/before-call.js';
import { CallSpend } from './turn/call-spend.js';
import { summaryCall } from './turn/compaction-summary.js';
import { ContextMeter } from './turn/context-meter.js';
import { InferenceCall, type InferenceCallDeps } from './turn/inference-call.js';
import { TaskTurns, type TurnNext } from './turn/task-turns.js';
import { ToolRound } from './turn/tool-round.js';

export type DriverFactory = (task: RunningTask) => TaskDriver;

export interface AgentLoopDeps {
  session: SessionContext;
  lifecycle: TaskLifecycle;
  events: TaskEvents;
  tools: ToolDispatcher;
  trace: TraceWriter;
  usage: UsageLedger;
  spend: SpendCeilings;
  /** The choice serving the next call: its output cap is part of a call's projected spend. */
  selection: DriverSelection;
  log: DoorLog;
  driverFor: DriverFactory;
  /** A formation member's continuations (formations/); absent outside a formation. */
  continuations?: TaskContinuations | null;
}

/**
 * Runs a task's turns (docs/agent-loop.md): one inference call with the whole conversation, then the tool calls it
 * asked for, in order, until the model answers, asks for input, fails, or runs out of turns (inference.max_turns).
 * A turn is a pipeline of steps, each in its own file under turn/: before the call, the call, its tool calls, after
 * the answer, and at an attempt's end.
 */
export class AgentLoop implements TaskRunner, OnModuleDestroy {
  private readonly result: ResultFile;
  private readonly spend: CallSpend;
  private readonly beforeCall: BeforeCall;
  private readonly callDeps: InferenceCallDeps;
  private readonly toolRound: ToolRound;
  private readonly afterAnswer: AfterAnswer;
  private readonly attemptEnd: AttemptEnd;

  constructor(private readonly deps: AgentLoopDeps) {
    const { session, lifecycle, events, trace, tools, usage, selection } = deps;
    const { manifest } = session;
    const continuations = deps.continuations ?? null;
    this.result = new ResultFile(session.recordsDir, (error) => deps.log.error('out/result.txt could not be written', { error: error.message }));
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
    this.spend = new CallSpend({ spend: deps.spend, usage, selection });
    this.beforeCall = new BeforeCall({ manifest, lifecycle, trace, selection, spend: this.spend });
    this.callDeps = { events, trace, usage, spend: this.spend };
    this.toolRound = new ToolRound({ session, lifecycle, events, tools, trace, hooks });
    this.afterAnswer = new AfterAnswer({ lifecycle, manifest, governors, continuations });
    this.attemptEnd = new AttemptEnd({ lifecycle, events, trace, hooks, result: this.result, continuations });
  }

  /** The session is ending: out/result.txt is brought up to date before the process may exit. */
  async onModuleDestroy(): Promise<void> {
    await this.result.flush();
  }

  async run(task: RunningTask): Promise<void> {
    const { session, lifecycle, continuations } = this.deps;
    const turns = new TaskTurns(task, session.manifest.inference?.max_turns ?? 1);
    const driver = this.deps.driverFor(task);
    const toolsFor = (call: number): ToolSpec[] => this.deps.tools.toolsForCall(task.id, call).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const call = new InferenceCall(this.callDeps, driver, systemPrompt(session), toolsFor);
    const meter = new ContextMeter(call.fixedTokens, turns.progress);
    const compactor = this.beforeCall.compactorFor(task.id, (transcript, turn) => summaryCall(this.spend, driver, task.signal, turn, transcript));
    try {
      for (;;) {
        const admitted = await this.beforeCall.admit(turns, meter, compactor);
        const next: TurnNext = admitted.kind === 'end' ? admitted : await this.turn(turns, call, meter, admitted.admission);
        if (next.kind === 'next') {
          if (next.message) turns.messages.push(next.message);
          continue;
        }
        const ended = await this.attemptEnd.finish(turns, next.ending);
        if (ended.kind === 'written') return;
        turns.messages.push(ended.message);
      }
    } catch (error) {
      if (task.signal.aborted) {
        // An ending held for an offer on its way (seed 004) stopped the task before it is written: the task keeps its
        // run slot until then.
        await lifecycle.ending(task.id);
        throw new TaskCanceledError(task.id);
      }
      throw error;
    } finally {
      // Every other ending accounts for the task's calls at once: outstanding ones abandoned.
      continuations?.settle(task.id);
    }
  }

  /** One turn of the http transport: the call, the tool calls it asked for, the transcript's bound, then what the answer decides. */
  private async turn(turns: TaskTurns, call: InferenceCall, meter: ContextMeter, admission: SpendAdmission): Promise<TurnNext> {
    const answer = await call.call(turns, meter, admission);
    if (answer.toolCalls.length > 0) turns.messages.push({ role: 'tool', results: await this.toolRound.run(turns, answer.toolCalls) });
    const elided = keepWithinBudget(turns.messages);
    if (elided > 0) this.deps.trace.write('conversation_trimmed', { task_id: turns.task.id, turn: turns.turn, elided_chars: elided, budget_chars: CONVERSATION_TEXT_BUDGET });
    return this.afterAnswer.decide(turns, answer);
  }
}
