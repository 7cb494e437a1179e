import type { JsonValue, QuotaWindowFrameFields, ToolArtifactFrameFields } from '@murmur/protocol';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { TaskEvents } from '../../tasks/task-events.js';
import type { TaskLifecycle } from '../../tasks/task-lifecycle.js';
import type { QuotaWindows } from '../../usage/quota-windows.js';
import { spentBy } from '../../usage/spend-ceilings.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { Usage } from '../driver.js';
import type { TaskTurns } from '../turn/task-turns.js';
import type { HarnessEvent } from './harness-events.js';

/** A tool output past this is cut in its artifact and record (as a shell tool's streams are). @unit characters */
const OUTPUT_CAP_CHARS = 1024 * 1024;

/** What a run's recorder is given. */
export interface RunRecorderDeps {
  events: TaskEvents;
  trace: TraceWriter;
  lifecycle: TaskLifecycle;
  usage: UsageLedger;
  quota: QuotaWindows;
  harness: string;
  model: string;
  /** Called with the session the harness names, the first time it names one. */
  onSession: (id: string) => void;
  /** After each closed turn: the message that stops the run when the session's spend passed its ceiling, else null. */
  spendPassed: () => string | null;
  /** After each closed turn: windows the harness wrote to its own store meanwhile (codex). */
  storedQuota: () => QuotaWindowFrameFields[];
}

/**
 * One run's events as the http loop's frames and records (docs/harness.md, "Frames and records"): text and thinking
 * chunks, the tools of the harness's own as tool-call-started, an unfenced artifact and a tool_call record, each closed
 * turn as an `inference` record counted in turns.used and the usage ledger, its windows as quota frames and its
 * predicted prompt as a suggested-prompt frame. The run's first turn was counted by its admission.
 */
export class RunRecorder {
  /** The turns this run closed, and its reported usage summed (settled against the machine's ceiling at its end). */
  closedTurns = 0;
  readonly spent: Required<Pick<Usage, 'input' | 'output'>> = { input: 0, output: 0 };
  /** Whether any text streamed in this run: an answer that streamed is not sent again whole. */
  chunked = false;
  private firstTurn = true;
  private turn = { startedMs: performance.now(), firstTokenMs: null as number | null, chunked: false, toolCalls: 0 };
  private readonly tools = new Map<string, { name: string; input: JsonValue; startedMs: number }>();
  private sessionSeen = false;

  constructor(
    private readonly deps: RunRecorderDeps,
    private readonly taskTurns: TaskTurns,
  ) {}

  /** One event; a message when the run must stop. */
  take(event: HarnessEvent): string | null {
    const { events } = this.deps;
    const taskId = this.taskTurns.task.id;
    switch (event.kind) {
      case 'session':
        if (!this.sessionSeen) this.deps.onSession(event.id);
        this.sessionSeen = true;
        return null;
      case 'turn-start':
        // The run's first turn was shown by its admission; each later one shows as it starts.
        if (!this.firstTurn) this.deps.lifecycle.progress(taskId, `inference turn ${this.taskTurns.openTurn()}`);
        this.firstTurn = false;
        this.turn = { startedMs: performance.now(), firstTokenMs: null, chunked: false, toolCalls: 0 };
        events.emit('inference', { taskId, phase: 'start' });
        return null;
      case 'text':
        this.firstToken();
        this.turn.chunked = true;
        this.chunked = true;
        events.emit('text', { taskId, text: event.text, final: false });
        return null;
      case 'thinking':
        this.firstToken();
        events.emit('thinking', { taskId, text: event.text });
        return null;
      case 'tool-start':
        this.turn.toolCalls += 1;
        this.tools.set(event.id, { name: event.name, input: event.input, startedMs: Date.now() });
        events.emit('tool-call-started', { taskId, toolCallId: event.id, toolName: event.name, input: event.input });
        return null;
      case 'tool-end':
        this.toolEnded(event);
        return null;
      case 'turn-end':
        return this.turnEnded(event);
      case 'quota':
        this.deps.quota.report(event.windows);
        events.emit('quota', { taskId, windows: this.deps.quota.frameWindows() });
        return null;
      case 'suggestion':
        events.emit('suggested-prompt', { taskId, text: event.text });
        return null;
      case 'answer':
      case 'failure':
        // The run's own ending: harness-run.ts reads these.
        return null;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown harness event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private firstToken(): void {
    this.turn.firstTokenMs ??= Math.round(performance.now() - this.turn.startedMs);
  }

  private toolEnded(event: Extract<HarnessEvent, { kind: 'tool-end' }>): void {
    const taskId = this.taskTurns.task.id;
    const started = this.tools.get(event.id);
    this.tools.delete(event.id);
    const truncated = event.output.length > OUTPUT_CAP_CHARS;
    const content = truncated ? event.output.slice(0, OUTPUT_CAP_CHARS) : event.output;
    const durationMs = started ? Date.now() - started.startedMs : null;
    const name = started?.name ?? 'tool';
    // The harness's own result, as it handed it to its model: not the runtime's, so not fenced by it.
    const artifact: ToolArtifactFrameFields = {
      toolName: name,
      content,
      fenceSource: null,
      toolCallId: event.id,
      isError: event.isError,
      durationMs,
      exitCode: event.exitCode,
      truncated,
    };
    this.deps.trace.write('tool_call', {
      task_id: taskId,
      tool: name,
      tool_call_id: event.id,
      status: event.isError ? 'error' : 'passed',
      duration_ms: durationMs,
      exit_code: event.exitCode,
      input: started?.input ?? null,
      output: content,
    });
    this.deps.events.emit('artifact', { taskId, artifact });
  }

  private turnEnded(event: Extract<HarnessEvent, { kind: 'turn-end' }>): string | null {
    const { events, trace } = this.deps;
    const taskId = this.taskTurns.task.id;
    if (this.turn.chunked) events.emit('text', { taskId, text: '', final: true });
    events.emit('inference', { taskId, phase: 'end' });
    this.taskTurns.closeTurn();
    this.closedTurns += 1;
    this.deps.usage.record(event.usage);
    this.spent.input += Math.max(0, event.usage?.input ?? 0);
    this.spent.output += Math.max(0, event.usage?.output ?? 0);
    trace.write('inference', {
      task_id: taskId,
      turn: this.taskTurns.turn,
      driver: this.deps.harness,
      model: this.deps.model,
      driver_kind: 'harness',
      ...(event.responseId ? { response_id: event.responseId } : {}),
      ...(event.responseModel ? { response_model: event.responseModel } : {}),
      stop_reason: event.stop,
      usage: event.usage ?? 'unreported',
      tool_calls: this.turn.toolCalls,
      duration_ms: Math.round(performance.now() - this.turn.startedMs),
      first_token_ms: this.turn.firstTokenMs,
    });
    const stored = this.deps.storedQuota();
    if (stored.length > 0) this.take({ kind: 'quota', windows: stored });
    return spentBy(event.usage) > 0 ? this.deps.spendPassed() : null;
  }
}
