import path from 'node:path';
import type { ToolCallRequest, ToolOutcome } from '../agent/driver.js';
import type { SessionContext } from '../session/session-context.js';
import type { ToolArtifact } from '../tasks/task-events.js';
import { BACKGROUND_COMMAND_TOOL, BackgroundCommandInputError, runBackgroundCommand } from './background-command-tool.js';
import type { BackgroundCommands } from './background-commands.js';
import { runShell, ShellInputError } from './shell-tool.js';
import { fenceToolResult } from './untrusted-fence.js';

export interface DispatchContext {
  taskId: string;
  signal: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
}

export interface Dispatched {
  outcome: ToolOutcome;
  artifact: ToolArtifact;
}

/** Answers the agent's tool calls: shell binaries from capabilities.shell.allow, and the runtime-provided tools granted. */
export class ToolDispatcher {
  constructor(
    private readonly session: SessionContext,
    private readonly background: BackgroundCommands,
  ) {}

  /** The tool names the model may call: each shell binary, then background-command when it is granted. */
  inventory(): string[] {
    const shell = this.session.manifest.capabilities.shell.allow;
    const graced = this.session.manifest.lifecycle.shell_grace_secs !== undefined && shell.length > 0;
    return graced ? [...shell, BACKGROUND_COMMAND_TOOL] : [...shell];
  }

  async dispatch(call: ToolCallRequest, ctx: DispatchContext): Promise<Dispatched> {
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
    if (!this.inventory().includes(call.name)) {
      const content = `tool '${call.name}' is not declared in manifest allowlist`;
      return {
        outcome: { name: call.name, stdout: '', stderr: '', exitCode: null, workId: null, isError: true, content },
        artifact: artifactOf(content, { fenceSource: null, isError: true, durationMs: 0 }),
      };
    }
    try {
      if (call.name === BACKGROUND_COMMAND_TOOL) {
        const text = await runBackgroundCommand(call.input, this.background, ctx.signal);
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
        this.background,
      );
      return {
        outcome: { name: call.name, stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, workId: result.workId, isError: false, content: result.content },
        artifact: artifactOf(result.content, { exitCode: result.exitCode, truncated: result.truncated }),
      };
    } catch (error) {
      if (!(error instanceof ShellInputError || error instanceof BackgroundCommandInputError)) throw error;
      const content = fenceToolResult(call.name, `${error.message}\n`);
      return {
        outcome: { name: call.name, stdout: '', stderr: error.message, exitCode: null, workId: null, isError: true, content },
        artifact: artifactOf(content, { isError: true }),
      };
    }
  }
}
