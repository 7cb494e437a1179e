import path from 'node:path';
import type { PeerHandles } from '../peers/peer-handles.js';
import type { SessionContext } from '../session/session-context.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { QuotaWindows } from '../usage/quota-windows.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import { type OutboundTracing, UNTRACED } from '../egress/outbound-tracing.js';
import type { SpendCeilings } from '../usage/spend-ceilings.js';
import type { BackgroundCommands } from './background-commands.js';
import type { ProcessRegistry } from './process-registry.js';
import type { SessionSandbox } from './sandbox/session-sandbox.js';
import {
  type DriverSelection,
  isRuntimeToolName,
  type MemberCallPort,
  type DelegatePort,
  missingGrantMessage,
  RUNTIME_TOOL_GRANTS,
  type RuntimeTool,
  type RuntimeToolName,
  runtimeTools,
} from './runtime/index.js';
import { runShell } from './shell-tool.js';
import { type CommandRun, type ToolArtifact, type ToolCallContext, type ToolCallRequest, ToolInputError, type ToolOutcome } from './tool-call.js';
import { shellEntry, type ToolEntry, ToolInventory } from './tool-inventory.js';
import { fenceToolResult } from '../auth/untrusted-fence.js';
import { callArtifact } from './artifacts/artifact-call.js';
import { ArtifactInstaller } from './artifacts/artifact-installer.js';
import type { InstalledArtifact, SessionArtifacts } from './artifacts/installed-artifacts.js';
import type { WasmHost } from './wasm/wasm-host.js';

export interface ToolDispatcherDeps {
  session: SessionContext;
  background: BackgroundCommands;
  processes: ProcessRegistry;
  /** Every command's sandbox and environment (docs/sandbox.md). */
  sandbox: SessionSandbox;
  trace: TraceWriter;
  usage: UsageLedger;
  /** A harness's subscription windows, for session-status (transport: process); absent otherwise. */
  quota?: QuotaWindows | null;
  spend: SpendCeilings;
  drivers: DriverSelection;
  /** A formation member's calls (formations/), or null outside a formation. */
  memberCalls?: MemberCallPort | null;
  /** The session's delegations (formations/), or null when capabilities.spawn.allow is empty. */
  delegations?: DelegatePort | null;
  handles: PeerHandles;
  /** Client spans for the runtime tools' outbound requests (telemetry/, bound in app.module.ts); none when absent. */
  tracing?: OutboundTracing;
  /** The session's artifacts: declared ones staged, pulled ones as pull-artifact installs them (docs/artifacts.md). */
  artifacts: SessionArtifacts;
  /** Where WASM tools run. */
  wasm: WasmHost;
}

export interface Dispatched {
  outcome: ToolOutcome;
  artifact: ToolArtifact;
  /** The call was refused (no such tool, or an input that does not fit): it did not run. */
  refused: boolean;
  /** A skill's call: the artifact it read, so its record is a skill_call (docs/artifacts.md); null for every other call. */
  skill?: string | null;
}

/**
 * Answers the agent's tool calls: the runtime-provided tools whose grant is declared (answered before the shell
 * allowlist is consulted, seed 004), then the shell binaries of capabilities.shell.allow. Every call's input is
 * checked against its tool's schema before it runs.
 */
export class ToolDispatcher {
  private readonly runtime: Map<RuntimeToolName, RuntimeTool>;
  readonly inventory: ToolInventory;

  constructor(private readonly deps: ToolDispatcherDeps) {
    const manifest = deps.session.manifest;
    const implemented = runtimeTools({
      ...deps,
      quota: deps.quota ?? null,
      memberCalls: deps.memberCalls ?? null,
      delegations: deps.delegations ?? null,
      tracing: deps.tracing ?? UNTRACED,
      fileOwner: deps.sandbox.fileOwner,
      // A plan's tool steps run through this dispatcher exactly as direct calls (docs/plans.md).
      plans: { dispatch: (call, ctx) => this.dispatch(call, ctx), missing: (name) => this.missing(name) },
      installer: new ArtifactInstaller({
        session: deps.session,
        artifacts: deps.artifacts,
        wasm: deps.wasm,
        trace: deps.trace,
        removed: (name) => this.artifactRemoved(name),
      }),
    });
    // Seed 004's table order, shell binaries first.
    const granted = (Object.keys(RUNTIME_TOOL_GRANTS) as RuntimeToolName[]).flatMap((name) => {
      const tool = implemented[name];
      return tool?.granted(manifest) ? [[name, tool] as const] : [];
    });
    this.runtime = new Map(granted);
    const entries: ToolEntry[] = [
      ...deps.artifacts.all().map(artifactEntry),
      ...manifest.capabilities.shell.allow.map(shellEntry),
      ...granted.map(([name, tool]) => ({
        name,
        kind: 'runtime' as const,
        description: tool.description,
        inputSchema: tool.inputSchema,
        checkedSchema: tool.checkedSchema,
      })),
    ];
    this.inventory = new ToolInventory(entries);
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
    const missing = this.missing(call.name);
    if (missing !== null) {
      return {
        outcome: { name: call.name, stdout: '', stderr: '', exitCode: null, workId: null, isError: true, content: missing },
        artifact: artifactOf(missing, { fenceSource: null, isError: true, durationMs: 0 }),
        refused: true,
      };
    }
    try {
      const runtimeTool = isRuntimeToolName(call.name) ? this.runtime.get(call.name) : undefined;
      const artifact = runtimeTool === undefined ? this.answeringArtifact(call.name) : undefined;
      const refusal = await this.inventory.inputRefusal(call.name, call.input);
      if (refusal !== null) {
        runtimeTool?.inputRefused?.(call.input, refusal, ctx);
        throw new ToolInputError(refusal);
      }
      if (runtimeTool) {
        const answer = await runtimeTool.run(call.input, { ...ctx, toolCallId: call.id });
        const { data, note, failed = false, fenced = false } = typeof answer === 'string' ? { data: answer } : answer;
        // The runtime's own note goes on the line after the closing marker, outside the fence (seed 004).
        const content = fenced ? data : `${fenceToolResult(call.name, `${data}\n`)}${note === undefined ? '' : `\n${note}`}`;
        return {
          outcome: { name: call.name, stdout: data, stderr: '', exitCode: null, workId: null, isError: failed, content },
          artifact: artifactOf(content, { isError: failed }),
          refused: false,
        };
      }
      if (artifact !== undefined) {
        const ran = await callArtifact(artifact, call, ctx, { session: this.deps.session, shell: this.deps, wasm: this.deps.wasm });
        return {
          outcome: {
            name: call.name,
            stdout: ran.stdout,
            stderr: ran.stderr,
            exitCode: ran.exitCode,
            workId: ran.workId,
            isError: ran.isError,
            content: ran.content,
          },
          artifact: artifactOf(ran.content, { fenceSource: ran.fenceSource, isError: ran.isError, exitCode: ran.exitCode, truncated: ran.truncated }),
          refused: false,
          skill: artifact.runtime === 'skill' ? artifact.fullName : null,
        };
      }
      const result = await runShell(
        {
          taskId: ctx.taskId,
          binary: call.name,
          input: call.input,
          cwd: this.deps.session.workDir,
          graceSecs: this.deps.session.manifest.lifecycle.shell_grace_secs ?? null,
          logsDir: path.join(this.deps.session.recordsDir, 'logs'),
          signal: ctx.signal,
          onOutput: ctx.onOutput,
        },
        this.deps,
      );
      return {
        outcome: {
          name: call.name,
          stdout: result.stdout,
          stderr: result.stderr,
          exitCode: result.exitCode,
          workId: result.workId,
          isError: false,
          content: result.content,
        },
        artifact: artifactOf(result.content, { exitCode: result.exitCode, truncated: result.truncated }),
        refused: false,
      };
    } catch (error) {
      if (!(error instanceof ToolInputError)) throw error;
      const content = fenceToolResult(call.name, `${error.message}\n`);
      return {
        outcome: { name: call.name, stdout: '', stderr: error.message, exitCode: null, workId: null, isError: true, content },
        artifact: artifactOf(content, { isError: true }),
        refused: true,
      };
    }
  }

  /**
   * Runs an operator's command (a done check, a hook; `stdin` its input) as a shell call runs — `sh -c <command>` in the workdir, in the sandbox,
   * recorded and reaped like every command — but never moved to the background: it ends by its exit, by `timeoutMs`
   * (its process group killed) or by the task's signal (which rethrows).
   */
  async runOperatorCommand(command: string, task: { id: string; signal: AbortSignal }, timeoutMs: number, stdin?: string): Promise<CommandRun> {
    const started = Date.now();
    const stop = new AbortController();
    const timedOut = new Error('the check timed out');
    // A plain controller fed by the task's signal and a timer: AbortSignal.any loses its timeout to a collection on Node
    // 20, kept only while the project's machines run Node 20 (docs/decisions.md, "Node versions"; egress/outbound-request.ts).
    const onTaskAbort = () => stop.abort(task.signal.reason);
    task.signal.addEventListener('abort', onTaskAbort, { once: true });
    const timer = setTimeout(() => stop.abort(timedOut), timeoutMs);
    try {
      const result = await runShell(
        {
          taskId: task.id,
          binary: 'sh',
          input: { command },
          cwd: this.deps.session.workDir,
          graceSecs: null,
          logsDir: path.join(this.deps.session.recordsDir, 'logs'),
          signal: stop.signal,
          onOutput: () => undefined,
          stdin,
        },
        this.deps,
      );
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, timedOut: false, durationMs: Date.now() - started };
    } catch (error) {
      // A command that could not start (no `sh` where commands run) fails the check as a shell reports it: 127.
      if (error instanceof ToolInputError)
        return { exitCode: 127, stdout: '', stderr: `${error.message}\n`, timedOut: false, durationMs: Date.now() - started };
      if (error !== timedOut) throw error;
      return { exitCode: null, stdout: '', stderr: '', timedOut: true, durationMs: Date.now() - started };
    } finally {
      clearTimeout(timer);
      task.signal.removeEventListener('abort', onTaskAbort);
    }
  }

  /**
   * The tool list the next inference call is sent. A pull or a removal since the last call is recorded first (seed 004:
   * tools_refreshed, trigger: "agent", before the next inference call).
   */
  toolsForCall(taskId: string, turn: number): ToolEntry[] {
    const change = this.deps.artifacts.takeChange();
    if (change !== null) {
      for (const artifact of change.added) this.inventory.add(artifactEntry(artifact));
      this.deps.trace.write('tools_refreshed', {
        task_id: taskId,
        turn,
        trigger: 'agent',
        added: change.added.map((a) => a.toolName),
        removed: change.removed,
      });
    }
    return this.inventory.entries();
  }

  /**
   * The artifact that answers a call naming `name`, by seed 004's precedence: a native artifact (or a skill) ahead of
   * the shell binary of the same name, and the shell binary ahead of a WASM artifact.
   */
  private answeringArtifact(name: string): InstalledArtifact | undefined {
    const artifact = this.deps.artifacts.callable(name);
    if (artifact?.implementation === 'wasm' && this.deps.session.manifest.capabilities.shell.allow.includes(name)) return undefined;
    return artifact;
  }

  /** remove-artifact took a tool out: a shell binary it shadowed is in the list again. */
  private artifactRemoved(name: string): void {
    this.inventory.remove(name);
    if (this.deps.session.manifest.capabilities.shell.allow.includes(name)) this.inventory.add(shellEntry(name));
  }

  /** Why a call names no tool of the inventory, or null: a removed artifact says so, a runtime tool names its missing grant, anything else the allowlist. */
  private missing(name: string): string | null {
    if (this.inventory.has(name)) return null;
    if (this.deps.artifacts.wasRemoved(name)) return `tool '${name}' was removed from this session; it can no longer be called`;
    if (this.deps.artifacts.pulledNow(name)) return `tool '${name}' was pulled during this turn; it can be called from the next turn`;
    return isRuntimeToolName(name) ? missingGrantMessage(name) : `tool '${name}' is not declared in manifest allowlist`;
  }
}

/** An artifact's inventory entry: its tool name, description and input schema (the manifest staging unpacked with it). */
function artifactEntry(artifact: InstalledArtifact): ToolEntry {
  return { name: artifact.toolName, kind: 'artifact', description: artifact.description, inputSchema: artifact.inputSchema };
}
