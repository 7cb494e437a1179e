import type { ToolArtifactFrameFields } from '@murmur/protocol';
import type { Manifest } from '../manifest/manifest.schema.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { CommandRun, OperatorCommandRunner, ToolCallRequest } from '../tools/tool-call.js';

type Hook = Manifest['hooks']['on_tool_call'][number];

/** Characters of a denying hook's output the model reads as the reason. */
const REASON_CHARS = 1000;

/** How an attempt ended, as the on_task_end hooks are told. */
export interface AttemptEnding {
  state: 'completed' | 'failed';
  answer: string | null;
  status: string | null;
  noAnswer: boolean;
}

/** What the on_task_end hooks said: their artifacts, and a reopen (the hook and its text) or none. */
export interface HooksVerdict {
  artifacts: ToolArtifactFrameFields[];
  reopen: { hook: string; text: string } | null;
}

const failedBy = (run: CommandRun, hook: Hook): string | null =>
  run.timedOut ? `the hook did not finish within ${hook.timeout_secs}s` : run.exitCode === 0 ? null : `the hook exited ${run.exitCode}`;

/**
 * The operator's hooks (docs/agent-loop.md, "Hooks"): on_tool_call decides every tool call before it runs (exit 0
 * allows, anything else denies), on_task_end may add artifacts to an attempt's end or reopen the task.
 */
export class TaskHooks {
  constructor(
    private readonly deps: {
      hooks: Manifest['hooks'];
      maxReopens: number;
      trace: TraceWriter;
      run: OperatorCommandRunner;
    },
  ) {}

  get hasTaskEndHooks(): boolean {
    return this.deps.hooks.on_task_end.length > 0;
  }

  /** The refusal the model reads when an on_tool_call hook denies the call, or null when every hook allows it. */
  async decide(task: { id: string; signal: AbortSignal }, turn: number, call: ToolCallRequest): Promise<string | null> {
    for (const hook of this.deps.hooks.on_tool_call) {
      const input = JSON.stringify({ hook: 'on_tool_call', task_id: task.id, turn, tool: call.name, tool_call_id: call.id, input: call.input });
      const run = await this.deps.run(hook.command, task, hook.timeout_secs * 1000, input);
      if (run.exitCode === 0 && !run.timedOut) continue;
      const said = run.stdout.trim().slice(0, REASON_CHARS);
      const reason = run.exitCode === 2 && !run.timedOut ? said || 'no reason given' : failedBy(run, hook)!;
      this.deps.trace.write('tool_call_denied', { task_id: task.id, tool: call.name, tool_call_id: call.id, hook: hook.name, reason });
      return `tool call denied by the on_tool_call hook '${hook.name}': ${reason}`;
    }
    return null;
  }

  /** Runs the on_task_end hooks over an attempt's ending; `reopensUsed` is how often this task was reopened. */
  async afterAttempt(
    task: { id: string; contextId: string; signal: AbortSignal },
    attempt: number,
    ending: AttemptEnding,
    reopensUsed: number,
  ): Promise<HooksVerdict> {
    const verdict: HooksVerdict = { artifacts: [], reopen: null };
    for (const hook of this.deps.hooks.on_task_end) {
      const input = JSON.stringify({
        hook: 'on_task_end',
        task_id: task.id,
        context_id: task.contextId,
        attempt,
        state: ending.state,
        answer: ending.answer,
        status: ending.status,
        no_answer: ending.noAnswer,
      });
      const run = await this.deps.run(hook.command, task, hook.timeout_secs * 1000, input);
      const failure = failedBy(run, hook);
      const said = failure === null ? readAnswer(run.stdout) : null;
      const why = failure ?? (said === null ? 'its output is not a JSON object with artifact and/or reopen (a non-blank text)' : null);
      if (why !== null || said === null) {
        this.deps.trace.write('hook_failed', { task_id: task.id, hook: hook.name, reason: why ?? 'no answer' });
        continue;
      }
      if (said.artifact !== undefined) {
        const content = typeof said.artifact === 'string' ? said.artifact : JSON.stringify(said.artifact);
        verdict.artifacts.push({
          toolName: hook.name,
          content,
          fenceSource: null,
          toolCallId: null,
          isError: false,
          durationMs: null,
          exitCode: null,
          truncated: false,
        });
        this.deps.trace.write('hook_artifact', { task_id: task.id, hook: hook.name, content });
      }
      if (said.reopen !== undefined) {
        if (reopensUsed >= this.deps.maxReopens) {
          this.deps.trace.write('hook_failed', {
            task_id: task.id,
            hook: hook.name,
            reason: `a reopen past lifecycle.max_task_reopens (${this.deps.maxReopens}) is not honored`,
          });
          continue;
        }
        verdict.reopen = { hook: hook.name, text: said.reopen };
        break;
      }
    }
    return verdict;
  }
}

/** A hook's answer: nothing at all, or an object with `artifact` (any JSON) and/or `reopen` (a non-blank text). */
function readAnswer(stdout: string): { artifact?: unknown; reopen?: string } | null {
  const text = stdout.trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { artifact, reopen, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return null;
  if (reopen !== undefined && (typeof reopen !== 'string' || reopen.trim() === '')) return null;
  return { ...(artifact !== undefined ? { artifact } : {}), ...(reopen !== undefined ? { reopen } : {}) };
}
