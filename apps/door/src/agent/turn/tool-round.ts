import { redactHandles } from '../../peers/peer-handles.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TaskEvents } from '../../tasks/task-events.js';
import { TaskCanceledError, type TaskLifecycle } from '../../tasks/task-lifecycle.js';
import type { RunningTask } from '../../tasks/task-queue.js';
import type { TaskProgress, ToolCallRequest } from '../../tools/tool-call.js';
import type { ToolDispatcher } from '../../tools/tool-dispatcher.js';
import type { ToolResult } from '../conversation.js';
import type { TaskHooks } from '../task-hooks.js';
import { inputTimeoutMs } from './input-wait.js';
import type { TaskTurns } from './task-turns.js';

/**
 * A turn's tool calls, in order: each past the on_tool_call hooks' decision point, through the dispatcher, into its
 * `tool_call` record and `artifact` frame; the first result inside the deadline's margin carries its notice.
 */
export class ToolRound {
  constructor(
    private readonly deps: {
      session: SessionContext;
      lifecycle: TaskLifecycle;
      events: TaskEvents;
      tools: ToolDispatcher;
      trace: TraceWriter;
      hooks: TaskHooks;
    },
  ) {}

  async run(turns: TaskTurns, calls: readonly ToolCallRequest[]): Promise<ToolResult[]> {
    const results: ToolResult[] = [];
    for (const call of calls) {
      if (turns.task.signal.aborted) throw new TaskCanceledError(turns.task.id);
      results.push(await this.one(turns.task, turns.turn, call, turns.progress));
    }
    return results;
  }

  /** One call of the model's, as its result joins the conversation; a harness's call through the tool server too (docs/harness.md). */
  async one(task: RunningTask, turn: number, call: ToolCallRequest, progress: TaskProgress): Promise<ToolResult> {
    const { events, trace, session, hooks } = this.deps;
    // The on_tool_call decision point (docs/agent-loop.md, "Hooks"): a denied call runs nothing and writes no frame.
    const denied = await hooks.decide(task, turn, call);
    if (denied !== null) {
      return {
        toolCallId: call.id,
        name: call.name,
        content: denied,
        isError: true,
        outcome: { name: call.name, stdout: '', stderr: denied, exitCode: null, workId: null, isError: true, content: denied },
      };
    }
    events.emit('tool-call-started', { taskId: task.id, toolCallId: call.id, toolName: call.name, input: call.input });
    const done = await this.deps.tools.dispatch(call, {
      taskId: task.id,
      signal: task.signal,
      task: progress,
      trust: task.trust,
      sentBy: task.owner.startsWith('member:') ? task.owner.slice('member:'.length) : null,
      askUser: (prompt) =>
        this.deps.lifecycle
          .awaitReply(task.id, prompt, inputTimeoutMs(session.manifest.lifecycle))
          .then((outcome) => (outcome.kind === 'reply' ? { kind: 'reply', text: outcome.text } : outcome)),
      // A plan's steps pass the same decision point (docs/plans.md).
      decide: (step) => hooks.decide(task, turn, step),
      onOutput: (stream, text) => events.emit('tool-call-progress', { taskId: task.id, toolCallId: call.id, stream, text }),
      // A tool's chunks through murmur:text/chunks are the task's text and thinking frames (seed 001).
      onChunk: (stream, text) =>
        stream === 'text' ? events.emit('text', { taskId: task.id, text, final: false }) : events.emit('thinking', { taskId: task.id, text }),
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
    else
      trace.write('tool_call', {
        ...called,
        tool: call.name,
        exit_code: done.artifact.exitCode,
        ...(done.outcome.workId ? { work_id: done.outcome.workId } : {}),
      });
    events.emit('artifact', { taskId: task.id, artifact: done.artifact });
    let content = done.outcome.content;
    // Seed 004, "The deadline notice": a tool that ran carries it, even one that reported failure; a refused call does not.
    const notice = done.refused ? null : (session.deadline?.takeNotice() ?? null);
    if (notice !== null) {
      content = `${content}\n${notice}`;
      trace.write('deadline_notice', { task_id: task.id, tool_call_id: call.id, at: session.deadline!.at, left_secs: session.deadline!.leftSecs() });
    }
    return { toolCallId: call.id, name: call.name, content, isError: done.outcome.isError, outcome: { ...done.outcome, content } };
  }
}
