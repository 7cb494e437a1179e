import { spawn } from 'node:child_process';
import { ConfigError, shown } from '../../config/config-problem.js';
import { resolveOnPath } from './binary-path.js';
import path from 'node:path';
import { ARTIFACT_PATH, type BwrapLayout, bwrapArgs, type LaunchPlan, launchArgs, stagedPath, visibleInSandbox } from './bwrap-args.js';

/** How long the start-up probe may take to run `true` in a sandbox before the door calls the sandbox unusable. */
const PROBE_TIMEOUT_MS = 10_000;

/** What `mur run` prints at launch for a capsule that opted out (docs/sandbox.md, "Opting out"). */
export const SANDBOX_OFF_WARNING =
  "mur: warning: capabilities.shell.sandbox is off: this capsule's commands run unsandboxed, with the door's user, files and network (docs/sandbox.md)";

/** The fix a refusal names: how to get bubblewrap, or how to opt out. */
const SANDBOX_FIX = 'install bubblewrap (apt-get install -y bubblewrap) or opt out with capabilities.shell.sandbox: off';

/** The fix when the helper was never built. */
export const HELPER_FIX = 'run npm run build, which compiles it with a C compiler (apt-get install -y gcc), or opt out with capabilities.shell.sandbox: off';

/**
 * A capsule that grants a shell cannot start: its commands cannot be sandboxed here (docs/sandbox.md, "When the
 * sandbox cannot be built"). Worded as every configuration refusal is, on the key that grants the shell.
 */
export class SandboxUnavailableError extends ConfigError {
  override readonly name = 'SandboxUnavailableError';

  /** `needs`: the key that makes the capsule run commands (its shell, or a done check) and its value; `fix`: what to do. */
  constructor(manifestFile: string, needs: { path: string; found: unknown }, why: string, fix = SANDBOX_FIX) {
    super(manifestFile, [
      { path: needs.path, found: shown(needs.found), allowed: `a shell only where its commands can be sandboxed, and here ${why}: ${fix}` },
    ]);
  }
}

/** How one command is started: the program, its arguments, and what it reports its own exit through. */
export interface CommandLine {
  file: string;
  args: string[];
  /** `init`: the sandbox's init reports the command's exit on fd 3 and takes requests there (init-channel.ts); `plain`: the process is the command. */
  protocol: 'init' | 'plain';
}

export interface CommandSandbox {
  /** `bwrap`, or `off` when the manifest opted out (capabilities.shell.sandbox: off). */
  readonly kind: 'bwrap' | 'off';
  /** PATH as a command sees it. */
  readonly path: string;
  /** HOME as a command sees it. */
  readonly home: string;
  /** Where `binary` is, as a command would find it; null when it is not there. */
  resolve(binary: string): string | null;
  /** Why `binary`, found on the door's PATH, cannot run in the sandbox; null when it can. */
  unreachable(binary: string): string | null;
  commandLine(binaryPath: string, args: readonly string[], cwd: string): CommandLine;
  /** A native artifact's entry, its folder shown read-only at ARTIFACT_PATH, run with no arguments (docs/artifacts.md). */
  artifactLine(folder: string, entry: string, cwd: string): CommandLine & { program: string };
}

/** No sandbox: the manifest said `capabilities.shell.sandbox: off`; commands run as the door's own children (docs/sandbox.md, "Opting out"). */
export function unsandboxed(doorPath: string, home: string): CommandSandbox {
  return {
    kind: 'off',
    path: doorPath,
    home,
    resolve: (binary) => resolveOnPath(binary, doorPath),
    unreachable: () => null,
    commandLine: (binaryPath, args) => ({ file: binaryPath, args: [...args], protocol: 'plain' }),
    artifactLine: (folder, entry) => ({ file: path.join(folder, entry), args: [], protocol: 'plain', program: path.join(folder, entry) }),
  };
}

export interface BwrapOptions {
  bwrap: string;
  /** The sandbox's helper (paths/sandbox-helper.ts): the launcher outside, the init inside. */
  helper: string;
  layout: BwrapLayout;
  launch: LaunchPlan;
  /** The door's PATH; a command's is its folders the sandbox shows. */
  doorPath: string;
}

/** Commands in bubblewrap (docs/sandbox.md): built once a session, after a probe proves the sandbox runs here. */
export function bwrapSandbox({ bwrap, helper, layout, launch, doorPath }: BwrapOptions): CommandSandbox {
  const path = doorPath
    .split(':')
    .filter((dir) => dir !== '' && visibleInSandbox(dir, layout))
    .join(':');
  return {
    kind: 'bwrap',
    path,
    home: '/tmp',
    resolve: (binary) => {
      const found = resolveOnPath(binary, path);
      return found !== null && visibleInSandbox(found, layout) ? found : null;
    },
    unreachable: (binary) => {
      const outside = resolveOnPath(binary, doorPath);
      if (outside === null || visibleInSandbox(outside, layout)) return null;
      return `shell binary '${binary}' is at ${outside}, which the sandbox does not show: commands see the system folders (/usr, /bin, /etc, /opt …) and the workdir only`;
    },
    commandLine: (binaryPath, args) => ({ file: helper, args: launchArgs(launch, bwrap, bwrapArgs(layout, binaryPath, args)), protocol: 'init' }),
    artifactLine: (folder, entry) => {
      // A root door's launcher stages the folder, which lies under the records the session's user cannot search.
      const staged = launch.user === null ? launch.staged : new Map(launch.staged).set('artifact', folder);
      const source = launch.user === null ? folder : stagedPath('artifact');
      const shown = { ...layout, extraBinds: [...(layout.extraBinds ?? []), { source, target: ARTIFACT_PATH, writable: false }] };
      const program = `${ARTIFACT_PATH}/${entry}`;
      return { file: helper, args: launchArgs({ ...launch, staged }, bwrap, bwrapArgs(shown, program, [])), protocol: 'init', program };
    },
  };
}

/**
 * Proves a sandbox runs here by running `true` in it, the way every command will run. Resolves why it cannot, or null.
 * Spawned, not spawnSync: the door's other start-up work goes on meanwhile.
 */
export function probeSandbox(sandbox: CommandSandbox, env: Record<string, string>): Promise<string | null> {
  if (sandbox.kind === 'off') return Promise.resolve(null);
  const truePath = sandbox.resolve('true');
  if (truePath === null) return Promise.resolve(`no 'true' is on the sandbox's PATH (${sandbox.path || 'empty'}) to probe it with`);
  const line = sandbox.commandLine(truePath, [], '/');
  return new Promise((resolve) => {
    const child = spawn(line.file, line.args, { env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let status = '';
    let stderr = '';
    // Bounded: what a sandbox that could not start says is a few lines.
    child.stdio[3]?.on('data', (chunk: Buffer) => (status = (status + chunk.toString('utf8')).slice(-4096)));
    child.stdio[3]?.on('error', () => undefined);
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4096)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(`bubblewrap could not run a command (${error.message})`);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (/^exit 0$/m.test(status)) return resolve(null);
      // The launcher's own refusals and bubblewrap's both end up on stderr; the last line says why.
      const said =
        stderr.trim().split('\n').at(-1) || (signal === 'SIGKILL' ? `it did not finish within ${PROBE_TIMEOUT_MS / 1000} s` : `it exited ${code ?? signal}`);
      resolve(`bubblewrap could not run a command (${said})`);
    });
  });
}
