import { existsSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from '../../manifest/manifest.loader.js';
import { SANDBOX_HELPER } from '../../paths/sandbox-helper.js';
import type { SessionContext } from '../../session/session-context.js';
import { COMMAND_SESSION_ENV } from '../process-registry.js';
import { resolveOnPath } from './binary-path.js';
import { type CommandDestination, commandDestinations } from '../../egress/command-destinations.js';
import { type BwrapLayout, type LaunchPlan, stagedPath } from './bwrap-args.js';
import { CommandEgress } from './command-egress.js';
import { commandEnv } from './command-env.js';
import { openSessionCgroups, type SessionCgroups } from './session-cgroups.js';
import { bwrapSandbox, type CommandSandbox, HELPER_FIX, probeSandbox, SandboxUnavailableError, unsandboxed } from './sandbox.js';
import { giveTree, sandboxUid } from './sandbox-user.js';
import { WorkdirBound } from './workdir-bound.js';

/** What session_start records of the sandbox: bubblewrap, opted out, or no shell granted (nothing to sandbox). */
export type SandboxRecord = 'bwrap' | 'off' | 'no-shell';

/** The resource bounds a sandboxed command's result names when one ended it (docs/sandbox.md, "Resource limits"). */
export interface SandboxLimits {
  maxFileMib: number;
  maxMemoryMib: number;
  maxWorkdirMib: number;
}

/** Where a harness's run finds its executable's folder and its home (docs/harness.md, "The boundary"). */
export const HARNESS_BIN_PATH = '/run/murmur/harness-bin';
export const HARNESS_HOME_PATH = '/run/murmur/harness-home';

/** What a harness adds to a command's sandbox: its executable's folder (read-only), its home (writable), its destinations. */
export interface HarnessSandboxPlan {
  binDir: string;
  home: string;
  /** The provider's address and the tool server, beside capabilities.network.allow's host:port entries. */
  destinations: readonly CommandDestination[];
}

/** A harness's sandbox: one command line per run, and the egress folder to close when the session ends. */
export interface HarnessSandbox {
  sandbox: CommandSandbox;
  close(): Promise<void>;
}

/** What a sandboxed session keeps to build a harness's sandbox like its commands' (bubblewrap, the helper, the bounds). */
interface SandboxParts {
  bwrap: string;
  helper: string;
  doorPath: string;
  hidden: string[];
  user: number | null;
  joins: readonly string[];
}

/** A session's sandbox for its commands and the one environment they get (docs/sandbox.md). */
export class SessionSandbox {
  private parts: SandboxParts | null = null;
  private harnessEgress: CommandEgress | null = null;

  private constructor(
    readonly sandbox: CommandSandbox,
    readonly env: Record<string, string>,
    readonly record: SandboxRecord,
    private readonly egress: CommandEgress | null = null,
    /** The session's cgroups, or null where none can be made here (docs/sandbox.md, "Resource limits"). */
    readonly cgroups: SessionCgroups | null = null,
    /** The workdir's bound, measured while commands run; null unsandboxed. */
    readonly workdirBound: WorkdirBound | null = null,
    readonly limits: SandboxLimits | null = null,
    /** Who owns the workdir's files: the session's own user when the door is root and commands are sandboxed, else null (the door's). */
    readonly fileOwner: number | null = null,
  ) {}

  /** The door closes: the egress sockets go (Nest calls it when the door's modules are destroyed). */
  async onModuleDestroy(): Promise<void> {
    this.workdirBound?.close();
    await this.egress?.close();
    await this.harnessEgress?.close();
  }

  /**
   * The sandbox a harness runs in (docs/harness.md, "The boundary"): the commands' own, with the harness's folder
   * bound read-only, its home writable, and its provider and tool server relayed beside the listed destinations.
   * Built once a session, on a session whose sandbox is bubblewrap.
   */
  async harnessSandbox(plan: HarnessSandboxPlan, session: SessionContext): Promise<HarnessSandbox> {
    const parts = this.parts;
    if (parts === null) throw new Error('a harness runs only in a bubblewrap sandbox');
    const shell = session.manifest.capabilities.shell;
    if (parts.user !== null) giveTree(plan.home, parts.user);
    const listed = commandDestinations(session.manifest.capabilities.network.allow);
    const added = plan.destinations.filter((d) => d.serve !== undefined || !listed.some((l) => l.host === d.host && l.port === d.port));
    const egress = await CommandEgress.open([...listed, ...added], parts.user);
    this.harnessEgress = egress;
    const staged = new Map<string, string>();
    if (parts.user !== null)
      staged.set('init', parts.helper).set('work', session.workDir).set('egress', egress.dir).set('harness-bin', plan.binDir).set('harness-home', plan.home);
    const source = (name: string, host: string) => (staged.has(name) ? stagedPath(name) : host);
    const layout: BwrapLayout = {
      workdir: session.workDir,
      hidden: parts.hidden,
      sources: { workdir: source('work', session.workDir), helper: source('init', parts.helper) },
      extraBinds: [
        ...egress.binds(source('egress', egress.dir)),
        { source: source('harness-bin', plan.binDir), target: HARNESS_BIN_PATH, writable: false },
        { source: source('harness-home', plan.home), target: HARNESS_HOME_PATH, writable: true },
      ],
      relays: egress.relays,
      maxFileMib: shell.max_file_mib,
      maxTmpMib: shell.max_tmp_mib,
    };
    const sandbox = bwrapSandbox({
      bwrap: parts.bwrap,
      helper: parts.helper,
      doorPath: parts.doorPath,
      layout,
      launch: { joins: parts.joins, staged, user: parts.user },
    });
    return { sandbox, close: () => egress.close() };
  }

  /** Every command of the session is killed: its cgroups go. */
  release(): void {
    this.cgroups?.release();
  }

  /**
   * Built when the door starts. A capsule that grants a shell and has not opted out gets bubblewrap, proven by a probe;
   * when it cannot be had, the door does not start (SandboxUnavailableError, which names the fix).
   */
  static async forSession(session: SessionContext, doorUid = process.getuid?.() ?? -1, helper = SANDBOX_HELPER): Promise<SessionSandbox> {
    const shell = session.manifest.capabilities.shell;
    const doorPath = session.settings.variable('PATH') ?? '/usr/local/bin:/usr/bin:/bin';
    const doorHome = session.settings.variable('HOME');
    const envFor = (sandbox: CommandSandbox) =>
      commandEnv({ path: sandbox.path, home: sandbox.home, passed: shell.env, mark: [COMMAND_SESSION_ENV, session.sessionId], variables: session.settings });
    // A done check's and a hook's command run as a shell call does, so they need the sandbox too (docs/agent-loop.md).
    const doneCheck = session.manifest.lifecycle.done_check;
    const hooks = [...session.manifest.hooks.on_tool_call, ...session.manifest.hooks.on_task_end];
    // So do a native artifact's, declared or pulled (docs/artifacts.md, "Native tools"); and a harness is a command
    // too, whose sandbox is all it may reach (docs/harness.md, "The boundary").
    const artifacts = session.manifest.artifacts.length > 0 || session.manifest.capabilities.install !== undefined;
    const harness = session.manifest.inference?.transport === 'process';
    const runsCommands = shell.allow.length > 0 || doneCheck !== undefined || hooks.length > 0 || artifacts || harness;
    if (!runsCommands || shell.sandbox === 'off') {
      // Unsandboxed commands keep their own HOME, the door's; the environment is the same allow-list.
      const sandbox = unsandboxed(doorPath, doorHome ?? session.workDir);
      return new SessionSandbox(sandbox, envFor(sandbox), runsCommands ? 'off' : 'no-shell');
    }
    // What the refusal names: the shell, or the done check when that is the only command the capsule runs.
    const needs =
      shell.allow.length > 0
        ? { path: 'capabilities.shell.allow', found: shell.allow }
        : harness
          ? { path: 'inference.transport', found: 'process' }
          : doneCheck
            ? { path: 'lifecycle.done_check.command', found: doneCheck.command }
            : hooks.length > 0
              ? { path: 'hooks', found: hooks.map((h) => h.name) }
              : session.manifest.artifacts.length > 0
                ? { path: 'artifacts', found: session.manifest.artifacts }
                : { path: 'capabilities.install', found: session.manifest.capabilities.install };
    const manifestFile = path.join(session.capsuleDir, MANIFEST_FILE);
    const bwrap = resolveOnPath('bwrap', doorPath);
    if (bwrap === null) throw new SandboxUnavailableError(manifestFile, needs, 'bubblewrap (bwrap) is not installed');
    if (!existsSync(helper)) throw new SandboxUnavailableError(manifestFile, needs, `the sandbox helper is not built (${helper})`, HELPER_FIX);
    const hidden = [session.settings.home, session.capsuleDir, session.recordsDir, ...(doorHome ? [doorHome] : [])].map((p) => path.resolve(p));
    // A root door runs its commands as the session's own user, to whom the workdir belongs (docs/sandbox.md, "The sandbox's user").
    const user = doorUid === 0 ? sandboxUid(session.sessionId) : null;
    if (user !== null) giveTree(session.workDir, user);
    // The listed host:port destinations, carried by the door from the init's relay in each command's sandbox.
    const destinations = commandDestinations(session.manifest.capabilities.network.allow);
    const egress = destinations.length > 0 ? await CommandEgress.open(destinations, user) : null;
    const cgroups = openSessionCgroups(session.sessionId, { maxProcesses: shell.max_processes, maxMemoryMib: shell.max_memory_mib });
    // A root door's launcher stages what bubblewrap binds: as the session's user, bubblewrap may not reach their host paths.
    const staged = new Map<string, string>();
    if (user !== null) {
      staged.set('init', helper).set('work', session.workDir);
      if (egress !== null) staged.set('egress', egress.dir);
    }
    const source = (name: string, host: string) => (staged.has(name) ? stagedPath(name) : host);
    const layout: BwrapLayout = {
      workdir: session.workDir,
      hidden,
      sources: { workdir: source('work', session.workDir), helper: source('init', helper) },
      extraBinds: egress?.binds(source('egress', egress.dir)) ?? [],
      relays: egress?.relays ?? [],
      maxFileMib: shell.max_file_mib,
      maxTmpMib: shell.max_tmp_mib,
    };
    const launch: LaunchPlan = { joins: cgroups?.procs ?? [], staged, user };
    const sandbox = bwrapSandbox({ bwrap, helper, doorPath, layout, launch });
    const env = envFor(sandbox);
    const why = await probeSandbox(sandbox, env);
    if (why !== null) {
      await egress?.close();
      cgroups?.release();
      throw new SandboxUnavailableError(manifestFile, needs, why);
    }
    const limits = { maxFileMib: shell.max_file_mib, maxMemoryMib: shell.max_memory_mib, maxWorkdirMib: shell.max_workdir_mib };
    const built = new SessionSandbox(sandbox, env, 'bwrap', egress, cgroups, new WorkdirBound(session.workDir, shell.max_workdir_mib), limits, user);
    built.parts = { bwrap, helper, doorPath, hidden, user, joins: launch.joins };
    return built;
  }
}
