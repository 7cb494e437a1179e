import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionContext } from '../session/session-context.js';
import type { TraceWriter } from '../session/trace-writer.js';
import type { TaskEvents } from '../tasks/task-events.js';
import { TaskCanceledError, type TaskLifecycle } from '../tasks/task-lifecycle.js';
import type { RunningTask, TaskRunner } from '../tasks/task-queue.js';
import type { ToolDispatcher } from '../tools/tool-dispatcher.js';
import type { TaskDriver, ToolOutcome } from './driver.js';

export type DriverFactory = (task: RunningTask) => TaskDriver;

export interface AgentLoopDeps {
  session: SessionContext;
  lifecycle: TaskLifecycle;
  events: TaskEvents;
  tools: ToolDispatcher;
  trace: TraceWriter;
  driverFor: DriverFactory;
}

/**
 * Runs a task's turns: one inference call, then the tool calls it asked for, in order, until the model answers,
 * asks for input, fails, or runs out of turns (inference.max_turns).
 */
export class AgentLoop implements TaskRunner {
  private readonly session: SessionContext;
  private readonly tasks: TaskLifecycle;
  private readonly events: TaskEvents;
  private readonly tools: ToolDispatcher;
  private readonly trace: TraceWriter;
  private readonly driverFor: DriverFactory;

  constructor(deps: AgentLoopDeps) {
    this.session = deps.session;
    this.tasks = deps.lifecycle;
    this.events = deps.events;
    this.tools = deps.tools;
    this.trace = deps.trace;
    this.driverFor = deps.driverFor;
  }

  async run(task: RunningTask): Promise<void> {
    const maxTurns = this.session.manifest.inference?.max_turns ?? 1;
    const driver = this.driverFor(task);
    let toolResults: ToolOutcome[] = [];
    let reply: string | null = null;
    try {
      for (let turn = 1; ; turn++) {
        if (turn > maxTurns) {
          await this.tasks.fail(task.id, `max_turns exceeded: the task used all ${maxTurns} inference turns`);
          return;
        }
        this.tasks.progress(task.id, `inference turn ${turn}`);
        this.trace.write('inference', { task_id: task.id, turn, driver: 'script' });
        let chunked = false;
        this.events.emit('inference', { taskId: task.id, phase: 'start' });
        const outcome = await driver.infer({ turn, toolResults, reply, signal: task.signal }, (chunk) => {
          if (chunk.kind === 'text') {
            chunked = true;
            this.events.emit('text', { taskId: task.id, text: chunk.text, final: false });
          } else this.events.emit('thinking', { taskId: task.id, text: chunk.text });
        });
        if (chunked) this.events.emit('text', { taskId: task.id, text: '', final: true });
        this.events.emit('inference', { taskId: task.id, phase: 'end' });
        // A completed task whose last call streamed nothing reports its whole reply as one final text frame.
        if (outcome.kind === 'answer' && !chunked && outcome.text !== '') this.events.emit('text', { taskId: task.id, text: outcome.text, final: true });
        toolResults = [];
        switch (outcome.kind) {
          case 'tools':
            for (const call of outcome.calls) {
              if (task.signal.aborted) throw new TaskCanceledError(task.id);
              this.events.emit('tool-call-started', { taskId: task.id, toolCallId: call.id, toolName: call.name, input: call.input });
              const done = await this.tools.dispatch(call, {
                taskId: task.id,
                signal: task.signal,
                onOutput: (stream, text) => this.events.emit('tool-call-progress', { taskId: task.id, toolCallId: call.id, stream, text }),
              });
              this.trace.write('tool_call', {
                task_id: task.id,
                tool: call.name,
                tool_call_id: call.id,
                status: done.artifact.isError ? 'error' : 'passed',
                duration_ms: done.artifact.durationMs,
                exit_code: done.artifact.exitCode,
                // The console's task record shows each call's input and output (docs/console.md).
                input: call.input,
                output: done.artifact.content,
                ...(done.outcome.workId ? { work_id: done.outcome.workId } : {}),
              });
              this.events.emit('artifact', { taskId: task.id, artifact: done.artifact });
              toolResults.push(done.outcome);
            }
            break;
          case 'answer':
            this.writeResult(outcome.text);
            await this.tasks.complete(task.id, outcome.text);
            return;
          case 'ask':
            reply = await this.tasks.awaitReply(task.id, outcome.prompt);
            break;
          case 'fail':
            await this.tasks.fail(task.id, outcome.message);
            return;
          case 'continue':
            break;
          default: {
            const unreachable: never = outcome;
            throw new Error(`unknown driver outcome ${JSON.stringify(unreachable)}`);
          }
        }
      }
    } catch (error) {
      if (task.signal.aborted) throw new TaskCanceledError(task.id);
      throw error;
    }
  }

  /** out/result.txt holds the latest completed task's answer. */
  private writeResult(text: string): void {
    const out = path.join(this.session.recordsDir, 'out');
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'result.txt'), text);
  }
}
