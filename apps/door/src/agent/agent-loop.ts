import type { OnModuleDestroy } from '@nestjs/common';
import { contextBudget, outputCapOf } from '../manifest/inference-choices.js';
import { redactHandles } from '../peers/peer-handles.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { DoorLog } from '../session/door-log.js';
import type { SessionContext } from '../session/session-context.js';
import type { TaskEvents } from '../tasks/task-events.js';
import { TaskCanceledError, type TaskLifecycle } from '../tasks/task-lifecycle.js';
import type { RunningTask, TaskRunner } from '../tasks/task-queue.js';
import { agentText } from '../tasks/task-text.js';
import { type DriverSelection, inputTimeoutText } from '../tools/runtime/index.js';
import type { TaskProgress, ToolCallRequest } from '../tools/tool-call.js';
import type { ToolDispatcher } from '../tools/tool-dispatcher.js';
import type { SpendAdmission, SpendCeilings } from '../usage/spend-ceilings.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import { AnswerGovernors } from './answer-governors.js';
import { CHARS_PER_TOKEN, COMPACTION_SYSTEM, Compactor, type ConversationSize, estimateTokens, type SummaryOutcome } from './compaction.js';
import type { ConversationMessage, ToolResult, UserContent } from './conversation.js';
import { CONVERSATION_TEXT_BUDGET, keepWithinBudget } from './conversation-budget.js';
import type { DriverResponse, TaskDriver, ToolSpec } from './driver.js';
import { ResultFile } from './result-file.js';
import { systemPrompt } from './system-prompt.js';
import type { TaskContinuations } from './task-continuations.js';
import { TaskHooks } from './task-hooks.js';

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


/** The task's own user message: its text (data renderings and reference block included), then its images in order. */
function taskMessage(task: RunningTask): ConversationMessage {
  const content: UserContent[] = [{ type: 'text', text: task.text }];
  for (const image of task.images) content.push({ type: 'image', mediaType: image.mediaType, base64: Buffer.from(image.bytes).toString('base64') });
  return { role: 'user', origin: 'task', content };
}


/** The task's attempts (a hook may reopen it): the current one's number and inference turns, and the reopens so far. */
interface Attempt {
  number: number;
  reopens: number;
  turn: number;
}

/** How an attempt is ending, before the on_task_end hooks have their say. */
type Ending = { kind: 'complete'; answer: string; chunked: boolean } | { kind: 'fail'; message: string; noAnswer?: boolean };

/** The conversation's size as the last call measured it, and the estimate of the transcript at that moment. */
interface Measure {
  tokens: number;
  estimateAt: number;
}

/**
 * Runs a task's turns: one inference call with the whole conversation, then the tool calls it asked for, in order,
 * until the model answers, asks for input, fails, or runs out of turns (inference.max_turns). Every call's usage
 * goes to the session's ledger and its `inference` record.
 */
export class AgentLoop implements TaskRunner, OnModuleDestroy {
  private readonly result: ResultFile;
  private readonly governors: AnswerGovernors;
  private readonly hooks: TaskHooks;
  private readonly compactionSettings: { threshold: number; keep_turns: number };

  constructor(private readonly deps: AgentLoopDeps) {
    this.result = new ResultFile(deps.session.recordsDir, (error) => deps.log.error('out/result.txt could not be written', { error: error.message }));
    this.governors = new AnswerGovernors({
      lifecycle: deps.session.manifest.lifecycle,
      trace: deps.trace,
      runCommand: (command, task, timeoutMs) => deps.tools.runOperatorCommand(command, task, timeoutMs),
      progress: (taskId, text) => deps.lifecycle.progress(taskId, text),
    });
    this.compactionSettings = Compactor.settingsOf(deps.session.manifest);
    this.hooks = new TaskHooks({
      hooks: deps.session.manifest.hooks,
      maxReopens: deps.session.manifest.lifecycle.max_task_reopens,
      trace: deps.trace,
      run: (command, task, timeoutMs, stdin) => deps.tools.runOperatorCommand(command, task, timeoutMs, stdin),
    });
  }

  /** The session is ending: out/result.txt is brought up to date before the process may exit. */
  async onModuleDestroy(): Promise<void> {
    await this.result.flush();
  }

  async run(task: RunningTask): Promise<void> {
    const { session, lifecycle, trace } = this.deps;
    const maxTurns = session.manifest.inference?.max_turns ?? 1;
    const driver = this.deps.driverFor(task);
    const system = systemPrompt(session);
    // The tool list as the next call is sent it: a pull or a removal changes it from the next call on (seed 004).
    const toolsFor = (taskId: string, call: number): ToolSpec[] => this.deps.tools.toolsForCall(taskId, call).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    let tools = toolsFor(task.id, 1);
    const messages: ConversationMessage[] = [taskMessage(task)];
    const progress: TaskProgress = { startedAtMs: task.startedAtMs, turnsUsed: 0, context: null, keepWorkingUsed: 0, doneCheckUsed: 0 };
    // The system prompt and the tool inventory are sent with every call: part of every call's projected spend.
    const fixedTokens = Math.ceil((system.length + JSON.stringify(tools).length) / CHARS_PER_TOKEN);
    let measure: Measure | null = null;
    // `turn` counts the task's calls across its attempts (inference.max_turns); `attempt.turn` names them in the stream.
    const attempt: Attempt = { number: 1, reopens: 0, turn: 0 };
    const end = (ending: Ending) => this.finish(task, messages, attempt, ending);
    const compactor = new Compactor({
      settings: this.compactionSettings,
      trace,
      started: () => lifecycle.progress(task.id, 'compacting the conversation'),
      summarize: (transcript, callTurn) => this.summarize(task, driver, callTurn, transcript),
    });
    try {
      for (let turn = 0; ; ) {
        if (turn >= maxTurns) {
          if (await end({ kind: 'fail', message: `max_turns exceeded: the task used all ${maxTurns} inference turns` })) return;
          continue;
        }
        // Compaction (docs/agent-loop.md): past the threshold of the next call's budget, the conversation shrinks first.
        let size = this.sizeNow(messages, measure, fixedTokens);
        const budget = contextBudget(this.deps.selection.current);
        if (budget) {
          const compacted = await compactor.compact(task.id, turn + 1, messages, size, budget, fixedTokens);
          if (compacted.kind === 'failed') {
            // Seed 001: a task whose compaction failed ends `failed` with `session ended`; the record says why.
            if (await end({ kind: 'fail', message: 'session ended' })) return;
            continue;
          }
          if (compacted.kind === 'compacted') {
            measure = { tokens: compacted.tokensAfter, estimateAt: estimateTokens(messages) };
            size = { ...size, tokens: compacted.tokensAfter };
            progress.context = { usedTokens: compacted.tokensAfter, measuredBy: 'estimate' };
          }
        }
        // Seed 001's spend refusal: a call whose projected cost (the conversation and the output cap it sends) would
        // pass a ceiling is not made (docs/agent-loop.md, "Spend ceilings").
        const choice = this.deps.selection.current;
        const projected = size.tokens + (choice ? outputCapOf(choice) : 0);
        const admitted = this.deps.spend.admit(projected);
        if ('refusal' in admitted) {
          const { refusal } = admitted;
          trace.write('spend_refused', { task_id: task.id, turn: turn + 1, ceiling: refusal.ceiling, limit: refusal.limit, spent: refusal.spent, projected: refusal.projected });
          if (await end({ kind: 'fail', message: refusal.message })) return;
          continue;
        }
        turn += 1;
        attempt.turn += 1;
        if (turn > 1) tools = toolsFor(task.id, turn);
        lifecycle.progress(task.id, `inference turn ${attempt.turn}`);
        progress.turnsUsed = turn;
        const { response, chunked, durationMs, firstTokenMs } = await this.settled(admitted.admission, () => this.infer(task, driver, { turn, system, messages, tools }));
        this.deps.usage.record(response.usage);
        progress.context = response.usage?.input !== undefined
          ? { usedTokens: response.usage.input + (response.usage.output ?? 0), measuredBy: 'actual' }
          : { usedTokens: estimateTokens(messages), measuredBy: 'estimate' };
        trace.write('inference', {
          task_id: task.id,
          turn,
          driver: driver.choice,
          ...(driver.model ? { model: driver.model } : {}),
          ...callFacts(driver),
          ...(response.responseId === undefined ? {} : { response_id: response.responseId }),
          ...(response.responseModel === undefined ? {} : { response_model: response.responseModel }),
          stop_reason: response.stop.kind,
          usage: response.usage ?? 'unreported',
          tool_calls: response.toolCalls.length,
          // The call's wall time, and from its start to the first streamed chunk (null: nothing streamed); the
          // console's waterfall draws the turn and its time to first token from them (docs/console.md).
          duration_ms: durationMs,
          first_token_ms: firstTokenMs,
        });
        messages.push({ role: 'assistant', text: response.text, thinking: response.thinking, toolCalls: response.toolCalls });
        measure = response.usage?.input !== undefined ? { tokens: response.usage.input + (response.usage.output ?? 0), estimateAt: estimateTokens(messages) } : null;
        if (response.toolCalls.length > 0) {
          messages.push({ role: 'tool', results: await this.runTools(task, turn, response.toolCalls, progress) });
        }
        const elided = keepWithinBudget(messages);
        if (elided > 0) trace.write('conversation_trimmed', { task_id: task.id, turn, elided_chars: elided, budget_chars: CONVERSATION_TEXT_BUDGET });
        if (response.toolCalls.length > 0) {
          // Seed 004, "end-without-answer": once the turn's tool calls finish, the attempt ends with no further call.
          const reason = this.deps.continuations?.endingWithoutAnswer(task.id) ?? null;
          if (reason !== null && (await end({ kind: 'fail', message: reason, noAnswer: true }))) return;
          continue;
        }
        const stop = response.stop;
        switch (stop.kind) {
          case 'end_turn': {
            // Seed 004, "How the answer arrives": with a turn still left, the task waits for its member calls and
            // continues with one message holding every answer; on its last allowed turn it does not wait.
            const continuations = this.deps.continuations;
            if (continuations && turn < maxTurns) {
              const text = await continuations.continuation(task.id, task.signal, (status) => lifecycle.progress(task.id, status));
              if (text !== null) {
                messages.push({ role: 'user', origin: 'runtime', content: [{ type: 'text', text }] });
                break;
              }
            }
            // keep_working and done_check (docs/agent-loop.md, "When the model answers").
            const next = await this.governors.afterAnswer(task, progress, turn, { left: turn < maxTurns, maxTurns });
            if (next.kind === 'continue') {
              messages.push({ role: 'user', origin: 'runtime', content: [{ type: 'text', text: next.text }] });
              break;
            }
            const ending: Ending = next.kind === 'fail' ? { kind: 'fail', message: next.message } : { kind: 'complete', answer: response.text, chunked };
            if (await end(ending)) return;
            break;
          }
          case 'input_required': {
            // The script driver's `ask`: no tool asked, so a timeout reaches the model as the runtime's own message.
            const outcome = await lifecycle.awaitReply(task.id, stop.prompt, this.inputTimeoutMs());
            if (outcome.kind === 'reply') messages.push({ role: 'user', origin: 'reply', content: [{ type: 'text', text: agentText(outcome.text, outcome.trust) }] });
            else messages.push({ role: 'user', origin: 'runtime', content: [{ type: 'text', text: `[request-input] ${inputTimeoutText(session.manifest.lifecycle.input_timeout_secs)}` }] });
            break;
          }
          case 'error':
            if (await end({ kind: 'fail', message: stop.message })) return;
            break;
          case 'max_tokens':
            if (await end({ kind: 'fail', message: 'the model’s reply was cut off at its output token cap' })) return;
            break;
          case 'tool_use':
          case 'pause_turn':
            break;
          default: {
            const unreachable: never = stop;
            throw new Error(`unknown stop reason ${JSON.stringify(unreachable)}`);
          }
        }
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
      this.deps.continuations?.settle(task.id);
    }
  }

  /**
   * An attempt ends (docs/agent-loop.md, "Hooks"): the on_task_end hooks run, their artifacts go out, and either the
   * ending is written (true) or a hook reopened the task (false: the next attempt goes on, from inference turn 1).
   */
  private async finish(task: RunningTask, messages: ConversationMessage[], attempt: Attempt, ending: Ending): Promise<boolean> {
    const { lifecycle, events, trace, continuations } = this.deps;
    if (this.hooks.hasTaskEndHooks) {
      const verdict = await this.hooks.afterAttempt(
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
        attempt.reopens += 1;
        attempt.number += 1;
        attempt.turn = 0;
        trace.write('task_reopened', { task_id: task.id, hook: verdict.reopen.hook, attempt: attempt.number });
        continuations?.reopened?.(task.id);
        lifecycle.reopened(task.id, `reopened by ${verdict.reopen.hook}: attempt ${attempt.number}`);
        messages.push({ role: 'user', origin: 'runtime', content: [{ type: 'text', text: verdict.reopen.text }] });
        return false;
      }
    }
    const noAnswerBelow = continuations?.noAnswerBelow(task.id) ?? [];
    if (ending.kind === 'complete') {
      // A completed task whose last call streamed nothing reports its whole reply as one final text frame.
      if (!ending.chunked && ending.answer !== '') events.emit('text', { taskId: task.id, text: ending.answer, final: true });
      this.result.write(ending.answer);
      await lifecycle.complete(task.id, ending.answer, { noAnswerBelow });
    } else if (ending.noAnswer) {
      this.result.write(`no answer: ${ending.message}`);
      await lifecycle.fail(task.id, ending.message, { noAnswer: true, noAnswerBelow });
    } else await lifecycle.fail(task.id, ending.message);
    return true;
  }

  /** lifecycle.input_timeout_secs in ms; null (no limit) for 0. */
  private inputTimeoutMs(): number | null {
    const secs = this.deps.session.manifest.lifecycle.input_timeout_secs;
    return secs === 0 ? null : secs * 1000;
  }

  /**
   * The conversation's size before the next call: the last call's reported input + output grown by the estimate of
   * what was added since, or — before any report — the estimate of the transcript, the system prompt and the tools.
   */
  private sizeNow(messages: readonly ConversationMessage[], measure: Measure | null, fixedTokens: number): ConversationSize {
    const estimate = estimateTokens(messages);
    if (!measure) return { tokens: estimate + fixedTokens, source: 'estimate', ratio: 1 };
    const ratio = measure.estimateAt > 0 ? measure.tokens / (measure.estimateAt + fixedTokens) : 1;
    return { tokens: measure.tokens + Math.ceil(Math.max(0, estimate - measure.estimateAt) * ratio), source: 'actual', ratio };
  }

  /**
   * Compaction's summary: one call of the task's driver with the older turns as a transcript and no tools, admitted
   * and settled against the spend ceilings like any call; its chunks are not the task's reply, so none is streamed.
   */
  private async summarize(task: RunningTask, driver: TaskDriver, turn: number, transcript: string): Promise<SummaryOutcome> {
    const messages: ConversationMessage[] = [{ role: 'user', origin: 'runtime', content: [{ type: 'text', text: `Summarise this transcript:\n\n${transcript}` }] }];
    const choice = this.deps.selection.current;
    const admitted = this.deps.spend.admit(estimateTokens(messages) + Math.ceil(COMPACTION_SYSTEM.length / CHARS_PER_TOKEN) + (choice ? outputCapOf(choice) : 0));
    if ('refusal' in admitted) return { kind: 'failed', reason: admitted.refusal.message };
    let response: DriverResponse;
    try {
      response = await driver.infer({ turn, system: COMPACTION_SYSTEM, messages, tools: [], signal: task.signal, purpose: 'compaction' }, () => undefined);
    } catch (error) {
      this.deps.spend.settle(admitted.admission, null);
      if (task.signal.aborted) throw error;
      return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
    this.deps.spend.settle(admitted.admission, response.usage);
    this.deps.usage.record(response.usage);
    if (response.stop.kind === 'error') return { kind: 'failed', reason: response.stop.message };
    if (response.text.trim() === '') return { kind: 'failed', reason: 'the model wrote no summary' };
    return { kind: 'summary', text: response.text };
  }

  /** Runs an admitted call and settles its spend with what it reported; a call that failed reported nothing. */
  private async settled<T extends { response: DriverResponse }>(admission: SpendAdmission, call: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await call();
    } catch (error) {
      this.deps.spend.settle(admission, null);
      throw error;
    }
    this.deps.spend.settle(admission, result.response.usage);
    return result;
  }

  /** One inference call, its chunks streamed as frames; the chunk ids follow the task's counter around it (seed 001). */
  private async infer(
    task: RunningTask,
    driver: TaskDriver,
    request: { turn: number; system: string; messages: ConversationMessage[]; tools: ToolSpec[] },
  ): Promise<{ response: DriverResponse; chunked: boolean; durationMs: number; firstTokenMs: number | null }> {
    const { events } = this.deps;
    let chunked = false;
    const startedMs = performance.now();
    let firstTokenMs: number | null = null;
    events.emit('inference', { taskId: task.id, phase: 'start' });
    let response: DriverResponse;
    try {
      response = await driver.infer({ ...request, signal: task.signal }, (chunk) => {
        firstTokenMs ??= Math.round(performance.now() - startedMs);
        if (chunk.kind === 'text') {
          chunked = true;
          events.emit('text', { taskId: task.id, text: chunk.text, final: false });
        } else events.emit('thinking', { taskId: task.id, text: chunk.text });
      });
    } catch (error) {
      // A call that failed (a 400, a broken stream) is a call too: its record says so (docs/agent-loop.md); one a
      // cancel or the session's end cut short is not a failure and writes none.
      if (!task.signal.aborted) {
        this.deps.usage.record(null);
        this.deps.trace.write('inference', {
          task_id: task.id,
          turn: request.turn,
          driver: driver.choice,
          ...(driver.model ? { model: driver.model } : {}),
          ...callFacts(driver),
          stop_reason: 'failed',
          failure: error instanceof Error ? error.message : String(error),
          usage: 'unreported',
          tool_calls: 0,
          duration_ms: Math.round(performance.now() - startedMs),
          first_token_ms: firstTokenMs,
        });
      }
      throw error;
    }
    if (chunked) events.emit('text', { taskId: task.id, text: '', final: true });
    events.emit('inference', { taskId: task.id, phase: 'end' });
    return { response, chunked, durationMs: Math.round(performance.now() - startedMs), firstTokenMs };
  }

  /** The calls of one turn, in order, each past the on_tool_call hooks and through the dispatcher; the first result inside the deadline's margin carries its notice. */
  private async runTools(task: RunningTask, turn: number, calls: ToolCallRequest[], progress: TaskProgress): Promise<ToolResult[]> {
    const { events, trace, session } = this.deps;
    const results: ToolResult[] = [];
    for (const call of calls) {
      if (task.signal.aborted) throw new TaskCanceledError(task.id);
      // The on_tool_call decision point (docs/agent-loop.md, "Hooks"): a denied call runs nothing and writes no frame.
      const denied = await this.hooks.decide(task, turn, call);
      if (denied !== null) {
        results.push({ toolCallId: call.id, name: call.name, content: denied, isError: true, outcome: { name: call.name, stdout: '', stderr: denied, exitCode: null, workId: null, isError: true, content: denied } });
        continue;
      }
      events.emit('tool-call-started', { taskId: task.id, toolCallId: call.id, toolName: call.name, input: call.input });
      const done = await this.deps.tools.dispatch(call, {
        taskId: task.id,
        signal: task.signal,
        task: progress,
        trust: task.trust,
        sentBy: task.owner.startsWith('member:') ? task.owner.slice('member:'.length) : null,
        askUser: (prompt) =>
          this.deps.lifecycle.awaitReply(task.id, prompt, this.inputTimeoutMs()).then((outcome) => (outcome.kind === 'reply' ? { kind: 'reply', text: outcome.text } : outcome)),
        // A plan's steps pass the same decision point (docs/plans.md).
        decide: (step) => this.hooks.decide(task, turn, step),
        onOutput: (stream, text) => events.emit('tool-call-progress', { taskId: task.id, toolCallId: call.id, stream, text }),
        // A tool's chunks through murmur:text/chunks are the task's text and thinking frames (seed 001).
        onChunk: (stream, text) => (stream === 'text' ? events.emit('text', { taskId: task.id, text, final: false }) : events.emit('thinking', { taskId: task.id, text })),
      });
      const called = {
        task_id: task.id,
        tool_call_id: call.id,
        status: done.artifact.isError ? ('error' as const) : ('passed' as const),
        duration_ms: done.artifact.durationMs,
        // The console's task record shows each call's input and output (docs/console.md).
        // A peer handle's secret is the credential: the trace keeps its handle id, never the secret (docs/planes.md).
        input: redactHandles(call.input),
        output: redactHandles(done.artifact.content),
      };
      // A skill's call is recorded as one (seed 001: skill_call; docs/artifacts.md).
      if (done.skill) trace.write('skill_call', { ...called, skill: call.name, artifact: done.skill, exit_code: null });
      else trace.write('tool_call', { ...called, tool: call.name, exit_code: done.artifact.exitCode, ...(done.outcome.workId ? { work_id: done.outcome.workId } : {}) });
      events.emit('artifact', { taskId: task.id, artifact: done.artifact });
      let content = done.outcome.content;
      // Seed 004, "The deadline notice": a tool that ran carries it, even one that reported failure; a refused call does not.
      const notice = done.refused ? null : (session.deadline?.takeNotice() ?? null);
      if (notice !== null) {
        content = `${content}\n${notice}`;
        trace.write('deadline_notice', { task_id: task.id, tool_call_id: call.id, at: session.deadline!.at, left_secs: session.deadline!.leftSecs() });
      }
      results.push({ toolCallId: call.id, name: call.name, content, isError: done.outcome.isError, outcome: { ...done.outcome, content } });
    }
    return results;
  }
}

/** The serving choice's driver kind and output cap, as the inference record carries them for telemetry. */
function callFacts(driver: TaskDriver): { driver_kind?: string; max_tokens?: number } {
  return { ...(driver.kind === undefined ? {} : { driver_kind: driver.kind }), ...(driver.maxOutputTokens === undefined ? {} : { max_tokens: driver.maxOutputTokens }) };
}
