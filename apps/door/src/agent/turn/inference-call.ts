import type { TraceWriter } from '../../records/trace-writer.js';
import type { TaskEvents } from '../../tasks/task-events.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { SpendAdmission } from '../../usage/spend-ceilings.js';
import { CHARS_PER_TOKEN } from '../compaction.js';
import type { DriverResponse, TaskDriver, ToolSpec } from '../driver.js';
import type { CallSpend } from './call-spend.js';
import type { ContextMeter } from './context-meter.js';
import { type CallTiming, inferenceRecord } from './inference-record.js';
import type { Answer, TaskTurns } from './task-turns.js';

export interface InferenceCallDeps {
  events: TaskEvents;
  trace: TraceWriter;
  usage: UsageLedger;
  spend: CallSpend;
}

/**
 * The call: one inference call of a task's driver with the whole conversation, sent its system prompt and the tool
 * list as that call sees it (a pull or a removal changes it from the next call on, seed 004). Its text and thinking chunks stream as frames, its spend is settled, and its `inference` record is
 * written — for a driver failure too (docs/agent-loop.md); a call a cancel or the session's end cut short writes none.
 */
export class InferenceCall {
  /** The system prompt's and the first call's tools' tokens, sent with every call. */
  readonly fixedTokens: number;
  private readonly firstTools: readonly ToolSpec[];

  constructor(
    private readonly deps: InferenceCallDeps,
    private readonly driver: TaskDriver,
    private readonly system: string,
    /** The tools the task's `call`th call (counted across its attempts) is sent. */
    private readonly toolsFor: (call: number) => readonly ToolSpec[],
  ) {
    this.firstTools = toolsFor(1);
    this.fixedTokens = Math.ceil((system.length + JSON.stringify(this.firstTools).length) / CHARS_PER_TOKEN);
  }

  /** Makes the admitted call; its answer joins the conversation. */
  async call(turns: TaskTurns, meter: ContextMeter, admission: SpendAdmission): Promise<Answer> {
    const streamed: CallTiming & { chunked: boolean } = { durationMs: 0, firstTokenMs: null, chunked: false };
    const response = await this.deps.spend.settled(admission, () => this.stream(turns, streamed));
    meter.called(response.usage, turns.messages);
    this.deps.trace.write('inference', inferenceRecord(turns.task.id, turns.turn, this.driver, { response }, streamed));
    turns.messages.push({ role: 'assistant', text: response.text, thinking: response.thinking, toolCalls: response.toolCalls });
    meter.answered(response.usage, turns.messages);
    return { text: response.text, stop: response.stop, toolCalls: response.toolCalls, chunked: streamed.chunked };
  }

  /** The driver's call, its chunks streamed as frames; the chunk ids follow the task's counter around it (seed 001). */
  private async stream(turns: TaskTurns, streamed: CallTiming & { chunked: boolean }): Promise<DriverResponse> {
    const { events } = this.deps;
    const { task } = turns;
    const startedMs = performance.now();
    events.emit('inference', { taskId: task.id, phase: 'start' });
    const tools = turns.turn === 1 ? this.firstTools : this.toolsFor(turns.turn);
    let response: DriverResponse;
    try {
      response = await this.driver.infer({ turn: turns.turn, system: this.system, messages: turns.messages, tools, signal: task.signal }, (chunk) => {
        streamed.firstTokenMs ??= Math.round(performance.now() - startedMs);
        if (chunk.kind === 'text') {
          streamed.chunked = true;
          events.emit('text', { taskId: task.id, text: chunk.text, final: false });
        } else events.emit('thinking', { taskId: task.id, text: chunk.text });
      });
    } catch (error) {
      // A call that failed (a 400, a broken stream) is a call too: its record says so; one a cancel or the session's
      // end cut short is not a failure and writes none.
      if (!task.signal.aborted) {
        this.deps.usage.record(null);
        streamed.durationMs = Math.round(performance.now() - startedMs);
        this.deps.trace.write(
          'inference',
          inferenceRecord(task.id, turns.turn, this.driver, { failure: error instanceof Error ? error.message : String(error) }, streamed),
        );
      }
      throw error;
    }
    if (streamed.chunked) events.emit('text', { taskId: task.id, text: '', final: true });
    events.emit('inference', { taskId: task.id, phase: 'end' });
    streamed.durationMs = Math.round(performance.now() - startedMs);
    return response;
  }
}
