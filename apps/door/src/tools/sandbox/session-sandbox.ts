import path from 'node:path';
import { MANIFEST_FILE } from '../../manifest/manifest.loader.js';
import type { SessionContext } from '../../session/session-context.js';
import { COMMAND_SESSION_ENV } from '../process-registry.js';
import { resolveOnPath } from './binary-path.js';
import { commandDestinations } from '../../egress/command-destinations.js';
import { CommandEgress } from './command-egress.js';
import { commandEnv } from './command-env.js';
import { openPidsCgroup, type PidsCgroup } from './pids-cgroup.js';
import { bwrapSandbox, type CommandSandbox, probeSandbox, SandboxUnavailableError, unsandboxed } from './sandbox.js';

/** What session_start records of the sandbox: bubblewrap, opted out, or no shell granted (nothing to sandbox). */
export type SandboxRecord = 'bwrap' | 'off' | 'no-shell';

/** A session's sandbox for its commands and the one environment they get (docs/sandbox.md). */
export class SessionSandbox {
  private constructor(
    readonly sandbox: CommandSandbox,
    readonly env: Record<string, string>,
    readonly record: SandboxRecord,
    private readonly egress: CommandEgress | null = null,
    /** The session's pids cgroup, or null where none can be made here (docs/sandbox.md, "Resource limits"). */
    readonly cgroup: PidsCgroup | null = null,
  ) {}

  /** The door closes: the egress sockets go (Nest calls it when the door's modules are destroyed). */
  async onModuleDestroy(): Promise<void> {
    await this.egress?.close();
  }

  /** Every command of the session is killed: its cgroup goes. */
  release(): void {
    this.cgroup?.release();
  }

  /**
   * Built when the door starts. A capsule that grants a shell and has not opted out gets bubblewrap, proven by a probe;
   * when it cannot be had, the door does not start (SandboxUnavailableError, which names the fix).
   */
  static async forSession(session: SessionContext, doorUid = process.getuid?.() ?? -1): Promise<SessionSandbox> {
    const shell = session.manifest.capabilities.shell;
    const doorPath = session.settings.variable('PATH') ?? '/usr/local/bin:/usr/bin:/bin';
    const doorHome = session.settings.variable('HOME');
    const envFor = (sandbox: CommandSandbox) =>
      commandEnv({ path: sandbox.path, home: sandbox.home, passed: shell.env, mark: [COMMAND_SESSION_ENV, session.sessionId], variables: session.settings });
    // A done check's and a hook's command run as a shell call does, so they need the sandbox too (docs/agent-loop.md).
    const doneCheck = session.manifest.lifecycle.done_check;
    const hooks = [...session.manifest.hooks.on_tool_call, ...session.manifest.hooks.on_task_end];
    const runsCommands = shell.allow.length > 0 || doneCheck !== undefined || hooks.length > 0;
    if (!runsCommands || shell.sandbox === 'off') {
      // Unsandboxed commands keep their own HOME, the door's; the environment is the same allow-list.
      const sandbox = unsandboxed(doorPath, doorHome ?? session.workDir);
      return new SessionSandbox(sandbox, envFor(sandbox), runsCommands ? 'off' : 'no-shell');
    }
    // What the refusal names: the shell, or the done check when that is the only command the capsule runs.
    const needs =
      shell.allow.length > 0
        ? { path: 'capabilities.shell.allow', found: shell.allow }
        : doneCheck
          ? { path: 'lifecycle.done_check.command', found: doneCheck.command }
          : { path: 'hooks', found: hooks.map((h) => h.name) };
    const manifestFile = path.join(session.capsuleDir, MANIFEST_FILE);
    const bwrap = resolveOnPath('bwrap', doorPath);
    if (bwrap === null) throw new SandboxUnavailableError(manifestFile, needs, 'bubblewrap (bwrap) is not installed');
    const hidden = [session.settings.home, session.capsuleDir, session.recordsDir, ...(doorHome ? [doorHome] : [])].map((p) => path.resolve(p));
    // The listed host:port destinations, carried by the door through a relay in each command's sandbox.
    const destinations = commandDestinations(session.manifest.capabilities.network.allow);
    const egress = destinations.length > 0 ? await CommandEgress.open(destinations, process.execPath) : null;
    const layout = { workdir: session.workDir, hidden, asRoot: doorUid === 0, maxFileMib: shell.max_file_mib, extraBinds: egress?.plan.binds ?? [], relaySpec: egress?.plan.relaySpec ?? null };
    const cgroup = openPidsCgroup(session.sessionId, shell.max_processes);
    const sandbox = bwrapSandbox({ bwrap, doorPath, layout, cgroupProcs: cgroup?.procs ?? null });
    const env = envFor(sandbox);
    const why = probeSandbox(sandbox, env);
    if (why !== null) {
      await egress?.close();
      cgroup?.release();
      throw new SandboxUnavailableError(manifestFile, needs, why);
    }
    return new SessionSandbox(sandbox, env, 'bwrap', egress, cgroup);
  }
}
