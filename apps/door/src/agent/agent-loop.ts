import type { OnModuleDestroy } from '@nestjs/common';
import type { RunningTask, TaskRunner } from '../tasks/task-queue.js';
import type { SpendAdmission } from '../usage/spend-ceilings.js';
import { CONVERSATION_TEXT_BUDGET, keepWithinBudget } from './conversation-budget.js';
import type { TaskDriver, ToolSpec } from './driver.js';
import { systemPrompt } from './system-prompt.js';
import { BeforeCall } from './turn/before-call.js';
import { summaryCall } from './turn/compaction-summary.js';
import { ContextMeter } from './turn/context-meter.js';
import { InferenceCall, type InferenceCallDeps } from './turn/inference-call.js';
import { TaskTurns, type TurnNext } from './turn/task-turns.js';
import { asTaskRun, type TurnStepDeps, type TurnSteps, turnSteps } from './turn/turn-steps.js';

export type DriverFactory = (task: RunningTask) => TaskDriver;

export interface AgentLoopDeps extends TurnStepDeps {
  driverFor: DriverFactory;
}

/**
 * Runs a task's turns (docs/agent-loop.md): one inference call with the whole conversation, then the tool calls it
 * asked for, in order, until the model answers, asks for input, fails, or runs out of turns (inference.max_turns).
 * A turn is a pipeline of steps, each in its own file under turn/: before the call, the call, its tool calls, after
 * the answer, and at an attempt's end.
 */
export class AgentLoop implements TaskRunner, OnModuleDestroy {
  private readonly steps: TurnSteps;
  private readonly beforeCall: BeforeCall;
  private readonly callDeps: InferenceCallDeps;

  constructor(private readonly deps: AgentLoopDeps) {
    const { session, lifecycle, events, trace, usage, selection } = deps;
    this.steps = turnSteps(deps);
    this.beforeCall = new BeforeCall({ manifest: session.manifest, lifecycle, trace, selection, spend: this.steps.spend });
    this.callDeps = { events, trace, usage, spend: this.steps.spend };
  }

  /** The session is ending: out/result.txt is brought up to date before the process may exit. */
  async onModuleDestroy(): Promise<void> {
    await this.steps.result.flush();
  }

  async run(task: RunningTask): Promise<void> {
    const { session } = this.deps;
    const turns = new TaskTurns(task, session.manifest.inference?.max_turns ?? 1);
    const driver = this.deps.driverFor(task);
    const toolsFor = (call: number): ToolSpec[] =>
      this.deps.tools.toolsForCall(task.id, call).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const call = new InferenceCall(this.callDeps, driver, systemPrompt(session), toolsFor);
    const meter = new ContextMeter(call.fixedTokens, turns.progress);
    const compactor = this.beforeCall.compactorFor(task.id, (transcript, turn) => summaryCall(this.steps.spend, driver, task.signal, turn, transcript));
    await asTaskRun(task, this.deps, async () => {
      for (;;) {
        const admitted = await this.beforeCall.admit(turns, meter, compactor);
        const next: TurnNext = admitted.kind === 'end' ? admitted : await this.turn(turns, call, meter, admitted.admission);
        if (next.kind === 'next') {
          if (next.message) turns.messages.push(next.message);
          continue;
        }
        const ended = await this.steps.attemptEnd.finish(turns, next.ending);
        if (ended.kind === 'written') return;
        turns.messages.push(ended.message);
      }
    });
  }

  /** One turn of the http transport: the call, the tool calls it asked for, the transcript's bound, then what the answer decides. */
  private async turn(turns: TaskTurns, call: InferenceCall, meter: ContextMeter, admission: SpendAdmission): Promise<TurnNext> {
    const answer = await call.call(turns, meter, admission);
    if (answer.toolCalls.length > 0) turns.messages.push({ role: 'tool', results: await this.steps.toolRound.run(turns, answer.toolCalls) });
    const elided = keepWithinBudget(turns.messages);
    if (elided > 0)
      this.deps.trace.write('conversation_trimmed', { task_id: turns.task.id, turn: turns.turn, elided_chars: elided, budget_chars: CONVERSATION_TEXT_BUDGET });
    return this.steps.afterAnswer.decide(turns, answer);
  }
}
