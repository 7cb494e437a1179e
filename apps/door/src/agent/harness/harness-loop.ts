import type { OnModuleDestroy } from '@nestjs/common';
import type { HarnessSpec } from '../../manifest/harness-spec.js';
import type { RunningTask, TaskRunner } from '../../tasks/task-queue.js';
import type { ProcessRegistry } from '../../tools/process-registry.js';
import type { CommandSandbox } from '../../tools/sandbox/sandbox.js';
import type { WorkdirBound } from '../../tools/sandbox/workdir-bound.js';
import { HARNESS_BIN_PATH, HARNESS_HOME_PATH } from '../../tools/sandbox/session-sandbox.js';
import type { QuotaWindows } from '../../usage/quota-windows.js';
import { type ConversationMessage, userText } from '../conversation.js';
import { systemPrompt } from '../system-prompt.js';
import { TaskTurns, type TurnNext } from '../turn/task-turns.js';
import { asTaskRun, type TurnStepDeps, type TurnSteps, turnSteps } from '../turn/turn-steps.js';
import type { ContextSessions } from './context-sessions.js';
import { type RunOutcome, runHarness } from './harness-run.js';
import type { LocatedHarness } from './harness-pins.js';
import type { HarnessAdapter, SessionMode } from './run-plan.js';
import { RunRecorder } from './run-recorder.js';
import { cannotResume, openSession } from './session-opening.js';
import type { ToolServer } from './tool-server.js';

/** How long a harness lets one tool-server call take: longer than any the runtime answers (a reply waits at most 7 days). */
const TOOL_TIMEOUT_SECS = 604_800 + 60;

export interface HarnessLoopDeps extends TurnStepDeps {
  spec: HarnessSpec;
  adapter: HarnessAdapter;
  located: LocatedHarness;
  contexts: ContextSessions;
  /** The harness's home on the host, where its own store is. */
  home: string;
  sandbox: CommandSandbox;
  /** The commands' environment (docs/sandbox.md), which a run's adds to. */
  commandEnv: Record<string, string>;
  toolServer: ToolServer;
  toolServerUrl: string;
  processes: ProcessRegistry;
  quota: QuotaWindows;
  /** The provider's key, read by the manifest's variable when the door started; null when none is sent. */
  key: string | null;
  /** What a run's writes are measured against: the workdir's bound and the harness's home's (docs/harness.md). */
  bounds: readonly { bound: WorkdirBound; what: string }[];
  /** The session is ending: the harness's egress folder goes, and its home is no longer measured. */
  closeSandbox(): Promise<void>;
}

const failing = (message: string, noAnswer?: true): TurnNext => ({ kind: 'end', ending: { kind: 'fail', message, ...(noAnswer ? { noAnswer } : {}) } });

/** The text a run is prompted with: a message the pipeline hands on (a continuation, a governor's, a hook's). */
const promptOf = (message: ConversationMessage | null): string => (message !== null && message.role === 'user' ? userText(message) : '');

/**
 * The harness transport (docs/harness.md): a task's turns are runs of a harness — Claude Code or Codex — in place of
 * the http loop's call and tool calls, inside the same pipeline (before a run, after an answer, at an attempt's end).
 * A task's first run opens the context's harness session (a forget first, a resume, a new one, or E-RUN-036); every
 * later run resumes it, prompted with what the pipeline goes on with.
 */
export class HarnessLoop implements TaskRunner, OnModuleDestroy {
  private readonly steps: TurnSteps;
  private readonly prompt: string;

  constructor(private readonly deps: HarnessLoopDeps) {
    this.steps = turnSteps(deps);
    this.prompt = systemPrompt(deps.session, deps.tools.inventory.names());
  }

  async onModuleDestroy(): Promise<void> {
    await this.steps.result.flush();
    this.deps.toolServer.close();
    await this.deps.closeSandbox();
  }

  async run(task: RunningTask): Promise<void> {
    const turns = new TaskTurns(task, this.deps.session.manifest.inference?.max_turns ?? 1);
    const session: { mode: SessionMode | null } = { mode: null };
    let prompt = task.text;
    let forget = task.forgetSession;
    await asTaskRun(task, this.deps, async () => {
      for (;;) {
        let next: TurnNext;
        if (session.mode === null) {
          const opening = openSession(
            { contexts: this.deps.contexts, adapter: this.deps.adapter, home: this.deps.home, trace: this.deps.trace },
            { id: task.id, contextId: task.contextId, forgetSession: forget },
          );
          forget = null;
          if (opening.kind === 'run') session.mode = opening.mode;
          next = opening.kind === 'run' ? await this.step(turns, prompt, session) : failing(opening.message);
        } else next = await this.step(turns, prompt, session);
        if (next.kind === 'next') {
          prompt = promptOf(next.message);
          continue;
        }
        const ended = await this.steps.attemptEnd.finish(turns, next.ending);
        if (ended.kind === 'written') return;
        prompt = promptOf(ended.message);
      }
    });
  }

  /** Before a run (max_turns, the spend ceilings), the run, then what its end decides. */
  private async step(turns: TaskTurns, prompt: string, session: { mode: SessionMode | null }): Promise<TurnNext> {
    const { task } = turns;
    const { trace, spec } = this.deps;
    if (!turns.turnLeft) return failing(`max_turns exceeded: the task used all ${turns.maxTurns} inference turns`);
    const admitted = this.steps.spend.admit(Math.ceil(prompt.length / 4));
    if ('refusal' in admitted) {
      const { refusal } = admitted;
      trace.write('spend_refused', {
        task_id: task.id,
        turn: turns.turn + 1,
        ceiling: refusal.ceiling,
        limit: refusal.limit,
        spent: refusal.spent,
        projected: refusal.projected,
      });
      return failing(refusal.message);
    }
    this.deps.lifecycle.progress(task.id, `inference turn ${turns.openTurn()}`);
    const mode = session.mode!;
    const { outcome, recorder } = await this.runOnce(turns, prompt, mode, session);
    this.deps.spend.settle(admitted.admission, recorder.spent);
    // Seed 004, "end-without-answer": an attempt whose harness kept going after the call and finished ends the same way.
    const noAnswer = this.deps.continuations?.endingWithoutAnswer(task.id) ?? null;
    if (noAnswer !== null) return failing(noAnswer, true);
    switch (outcome.kind) {
      case 'answered':
        return this.steps.afterAnswer.decide(turns, { text: outcome.text, stop: { kind: 'end_turn' }, toolCalls: [], chunked: recorder.chunked });
      case 'stopped':
        return failing(outcome.message);
      case 'failed':
        if (outcome.maxTurns) return failing(`max_turns exceeded: the task used all ${turns.maxTurns} inference turns`);
        if (outcome.resumeRefused && mode.kind === 'resume') {
          return failing(cannotResume(task.contextId, spec.name, mode.id, `the harness refused to resume it (${outcome.message})`));
        }
        return failing(`harness failed: ${spec.name}: ${outcome.message}`);
      default: {
        const unreachable: never = outcome;
        throw new Error(`unknown run outcome ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** One run: its tool-server registration, its records, its frames; the session it confirms becomes the context's. */
  private async runOnce(
    turns: TaskTurns,
    prompt: string,
    mode: SessionMode,
    session: { mode: SessionMode | null },
  ): Promise<{ outcome: RunOutcome; recorder: RunRecorder }> {
    const { task } = turns;
    const deps = this.deps;
    const { spec, adapter, trace } = deps;
    let sessionId = mode.id;
    trace.write('harness_start', {
      task_id: task.id,
      context_id: task.contextId,
      harness: spec.name,
      model: spec.model,
      session_mode: mode.kind,
      harness_session_id: sessionId,
    });
    const recorder = new RunRecorder(
      {
        events: deps.events,
        trace,
        lifecycle: deps.lifecycle,
        usage: deps.usage,
        quota: deps.quota,
        harness: spec.name,
        model: spec.model,
        onSession: (id) => {
          sessionId = id;
          // The context's entry is written once the harness confirms its session; every later run resumes it.
          if (mode.kind === 'new') deps.contexts.set(task.contextId, { harness: spec.name, sessionId: id });
          session.mode = { kind: 'resume', id };
        },
        spendPassed: () => this.spendPassed(),
        storedQuota: () => (sessionId !== null && adapter.quotaSince ? adapter.quotaSince(deps.home, sessionId) : []),
      },
      turns,
    );
    const served = deps.toolServer.open({
      tools: deps.tools.inventory.entries().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      call: async (call) => {
        const result = await this.steps.toolRound.one(task, turns.turn, call, turns.progress);
        return { content: result.content, isError: result.isError };
      },
    });
    let outcome: RunOutcome = { kind: 'stopped', message: 'the run was stopped' };
    let exitCode: number | null = null;
    try {
      const end = await runHarness({
        plan: {
          spec,
          mode,
          turnsLeft: turns.maxTurns - turns.turn,
          systemPrompt: this.prompt,
          workDir: deps.session.workDir,
          toolServerUrl: deps.toolServerUrl,
          toolTimeoutSecs: TOOL_TIMEOUT_SECS,
        },
        adapter,
        sandbox: deps.sandbox,
        env: deps.commandEnv,
        executable: `${HARNESS_BIN_PATH}/${deps.located.executable}`,
        home: HARNESS_HOME_PATH,
        key: deps.key,
        toolToken: served.token,
        prompt,
        taskId: task.id,
        signal: task.signal,
        processes: deps.processes,
        toolCallInFlight: served.inFlight,
        onEvent: (event) => recorder.take(event),
        bounds: deps.bounds,
      });
      outcome = end.outcome;
      exitCode = end.exitCode;
      return { outcome, recorder };
    } finally {
      served.close();
      const failure = outcome.kind === 'answered' ? undefined : task.signal.aborted ? 'the task was canceled or the session ended' : outcome.message;
      trace.write('harness_end', {
        task_id: task.id,
        harness: spec.name,
        harness_session_id: sessionId,
        outcome: task.signal.aborted || outcome.kind === 'stopped' ? 'stopped' : outcome.kind,
        exit_code: exitCode,
        turns: recorder.closedTurns,
        ...(failure === undefined ? {} : { failure }),
      });
    }
  }

  /** The session's spend passed inference.max_session_tokens during a run: the message that stops it, or null. */
  private spendPassed(): string | null {
    const ceiling = this.deps.spend.status().ceiling;
    const spent = this.deps.usage.spentTokens();
    if (ceiling === 'none' || spent <= ceiling) return null;
    return `spend ceiling reached: inference.max_session_tokens is ${ceiling} and this session has spent ${spent} tokens; the harness was stopped`;
  }
}
