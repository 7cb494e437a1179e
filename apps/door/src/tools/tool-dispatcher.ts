import path from 'node:path';
import type { SessionContext } from '../session/session-context.js';
import type { TraceWriter } from '../session/trace-writer.js';
import type { BackgroundCommands } from './background-commands.js';
import type { ProcessRegistry } from './process-registry.js';
import { isRuntimeToolName, missingGrantMessage, type RuntimeTool, type RuntimeToolName, runtimeTools } from './runtime/index.js';
import { runShell } from './shell-tool.js';
import { type ToolArtifact, type ToolCallContext, type ToolCallRequest, ToolInputError, type ToolOutcome } from './tool-call.js';
import { fenceToolResult } from './untrusted-fence.js';

export interface ToolDispatcherDeps {
  session: SessionContext;
  background: BackgroundCommands;
  processes: ProcessRegistry;
  trace: TraceWriter;
}

export interface Dispatched {
  outcome: ToolOutcome;
  artifact: ToolArtifact;
}

/**
 * Answers the agent's tool calls: the runtime-provided tools whose grant is declared (answered before the shell
 * allowlist is consulted, seed 004), then the shell binaries of capabilities.shell.allow.
 */
export class ToolDispatcher {
  private readonly runtime: Map<RuntimeToolName, RuntimeTool>;
  private readonly session: SessionContext;

  constructor(private readonly deps: ToolDispatcherDeps) {
    this.session = deps.session;
    const granted = Object.entries(runtimeTools(deps)).filter(([, tool]) => tool.granted(deps.session.manifest));
    this.runtime = new Map(granted as [RuntimeToolName, RuntimeTool][]);
  }

  /** The tool names the model may call: each shell binary, then each runtime tool whose grant is declared. */
  inventory(): string[] {
    return [...this.session.manifest.capabilities.shell.allow, ...this.runtime.keys()];
  }

  async dispatch(call: ToolCallRequest, ctx: ToolCallContext): Promise<Dispatched> {
    const started = Date.now();
    const artifactOf = (content: string, fields: Partial<ToolArtifact>): ToolArtifact => ({
      toolName: call.name,
      content,
      fenceSource: `tool:${call.name}`,
      toolCallId: call.id === '' ? null : call.id,
      isError: false,
      durationMs: Date.now() - started,
      exitCode: null,
      truncated: false,
      ...fields,
    });
    const refusal = this.refusal(call.name);
    if (refusal !== null) {
      return {
        outcome: { name: call.name, stdout: '', stderr: '', exitCode: null, workId: null, isError: true, content: refusal },
        artifact: artifactOf(refusal, { fenceSource: null, isError: true, durationMs: 0 }),
      };
    }
    try {
      const runtimeTool = isRuntimeToolName(call.name) ? this.runtime.get(call.name) : undefined;
      if (runtimeTool) {
        const text = await runtimeTool.run(call.input, ctx);
        const content = fenceToolResult(call.name, `${text}\n`);
        return { outcome: { name: call.name, stdout: text, stderr: '', exitCode: null, workId: null, isError: false, content }, artifact: artifactOf(content, {}) };
      }
      const result = await runShell(
        {
          taskId: ctx.taskId,
          binary: call.name,
          input: call.input,
          cwd: this.session.capsuleDir,
          graceSecs: this.session.manifest.lifecycle.shell_grace_secs ?? null,
          logsDir: path.join(this.session.recordsDir, 'logs'),
          signal: ctx.signal,
          onOutput: ctx.onOutput,
        },
        this.deps,
      );
      return {
        outcome: { name: call.name, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, workId: result.workId, isError: false, content: result.content },
        artifact: artifactOf(result.content, { exitCode: result.exitCode, truncated: result.truncated }),
      };
    } catch (error) {
      if (!(error instanceof ToolInputError)) throw error;
      const content = fenceToolResult(call.name, `${error.message}\n`);
      return {
        outcome: { name: call.name, stdout: '', stderr: error.message, exitCode: null, workId: null, isError: true, content },
        artifact: artifactOf(content, { isError: true }),
      };
    }
  }

  /** Why a call cannot run at all, or null: a runtime tool names its missing grant, anything else the allowlist. */
  private refusal(name: string): string | null {
    if (isRuntimeToolName(name)) return this.runtime.has(name) ? null : missingGrantMessage(name);
    return this.session.manifest.capabilities.shell.allow.includes(name) ? null : `tool '${name}' is not declared in manifest allowlist`;
  }
}
