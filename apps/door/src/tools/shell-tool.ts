import { createWriteStream, mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { fenceToolResult } from '../auth/untrusted-fence.js';
import { newId } from '../common/ids.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../common/private-files.js';
import type { BackgroundCommands } from './background-commands.js';
import { type CommandExit, CommandProcess } from './command-process.js';
import type { GroupMember } from './process-group.js';
import type { ProcessRegistry } from './process-registry.js';
import type { SessionContext } from '../session/session-context.js';
import type { CommandLine, CommandSandbox } from './sandbox/sandbox.js';
import type { SessionSandbox } from './sandbox/session-sandbox.js';
import { ToolInputError } from './tool-call.js';

/** Bytes of each stream kept for the model; past it the result says truncated. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

/**
 * How long output is still read after the shell exits: what its children wrote just before is kept, and a child
 * that holds the output open (a server started with `&`) does not hold the call (docs/agent-loop.md, "Processes").
 */
const DRAIN_MS = 50;

export interface ShellCall {
  taskId: string;
  /** The binary as capabilities.shell.allow names it. */
  binary: string;
  input: Record<string, unknown>;
  cwd: string;
  graceSecs: number | null;
  logsDir: string;
  signal: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
  /** What the command reads on standard input (a hook's input); none (/dev/null) when absent. */
  stdin?: string;
  /** A native artifact's program instead of a shell binary: its folder (shown read-only) and its entry (docs/artifacts.md, "Native tools"). */
  artifact?: { folder: string; entry: string };
}

export interface ShellDeps {
  session: SessionContext;
  background: BackgroundCommands;
  processes: ProcessRegistry;
  sandbox: SessionSandbox;
}

export interface ShellResult {
  content: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  truncated: boolean;
  /** Set when the command moved to the background. */
  workId: string | null;
  /** The note naming the resource limit that ended the command, or null (docs/sandbox.md, "Resource limits"). */
  limit: string | null;
}

/** {"command": "<text>"} runs `<binary> -c <text>` (for shells); {"args": [..]} runs the binary with those arguments. */
export function readShellInput(binary: string, input: Record<string, unknown>): { args: string[]; shown: string } {
  if (typeof input.command === 'string' && input.command !== '') return { args: ['-c', input.command], shown: input.command };
  if (Array.isArray(input.args) && input.args.every((a) => typeof a === 'string')) {
    const args = input.args as string[];
    return { args, shown: [binary, ...args].join(' ') };
  }
  throw new ToolInputError(`tool '${binary}' takes {"command": "<text>"} or {"args": ["<arg>", …]}`);
}

/** The command a call starts: a shell binary resolved where commands run, or a native artifact's entry, and what its result shows of it. */
function commandOf(call: ShellCall, sandbox: CommandSandbox): { line: CommandLine; binaryPath: string; shown: string } {
  if (call.artifact !== undefined) {
    const line = sandbox.artifactLine(call.artifact.folder, call.artifact.entry, call.cwd);
    return { line, binaryPath: line.program, shown: call.binary };
  }
  const { args, shown } = readShellInput(call.binary, call.input);
  const binaryPath = sandbox.resolve(call.binary);
  if (binaryPath === null) throw new ToolInputError(sandbox.unreachable(call.binary) ?? `shell binary '${call.binary}' is not installed on this host`);
  return { line: sandbox.commandLine(binaryPath, args, call.cwd), binaryPath, shown };
}

/** Waits for the output to end, for at most DRAIN_MS; true when it ended. */
async function drained(closed: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([closed.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DRAIN_MS)))]);
  clearTimeout(timer);
  return ended;
}

/** The note after the fence naming the processes that still hold a finished command's output. */
function holdersNote(holders: GroupMember[]): string {
  const named = holders.map((h) => `${h.pid} ${h.comm}`).join(', ');
  const count = holders.length === 1 ? '1 process it started still holds' : `${holders.length} processes it started still hold`;
  return `note: the command exited, but ${count} its output and runs on until the session ends: ${named}`;
}

/** What a sandboxed command's run learns of the limits around it (docs/sandbox.md, "Resource limits"). */
interface LimitWatch {
  /** The note for the limit that ended the command, once it has exited. */
  note(exit: CommandExit): string | null;
  /** Resolves once the door's own ending of the command's group (a limit it ran into) is over; at once if none. */
  ending(): Promise<void>;
  done(): void;
}

/** Watches the limits a sandboxed command can run into; none for an unsandboxed one. */
function watchLimits(deps: ShellDeps, command: CommandProcess): LimitWatch {
  const { limits, cgroups, workdirBound } = deps.sandbox;
  if (limits === null) return { note: () => null, ending: () => Promise.resolve(), done: () => undefined };
  const oomBefore = cgroups?.oomKills() ?? null;
  let ending: Promise<void> = Promise.resolve();
  const workdir =
    workdirBound?.watch(() => {
      ending = command.end();
    }) ?? null;
  return {
    ending: () => ending,
    note: (exit) => {
      if (workdir?.ended)
        return `note: the workdir grew past capabilities.shell.max_workdir_mib (${limits.maxWorkdirMib} MiB): the door ended the session's running commands`;
      const oomAfter = cgroups?.oomKills() ?? null;
      if (oomBefore !== null && oomAfter !== null && oomAfter > oomBefore) {
        return `note: the session's commands passed capabilities.shell.max_memory_mib (${limits.maxMemoryMib} MiB) while this command ran: the kernel ended a process of theirs`;
      }
      if (exit.signal === constants.signals.SIGXFSZ)
        return `note: the command wrote a file past capabilities.shell.max_file_mib (${limits.maxFileMib} MiB): SIGXFSZ ended it`;
      return null;
    },
    done: () => workdir?.done(),
  };
}

/**
 * Runs one shell binary as a real subprocess in the workdir, in its own process group (in the sandbox unless the
 * capsule opted out), recorded in the session's process registry from its spawn. The call returns when the shell
 * exits (output still held by a child is read for DRAIN_MS more, and the holders are named in a note after the
 * fence), or moves to the background once lifecycle.shell_grace_secs pass.
 */
export async function runShell(call: ShellCall, deps: ShellDeps): Promise<ShellResult> {
  const { sandbox, env } = deps.sandbox;
  const { line, binaryPath, shown } = commandOf(call, sandbox);
  const startedAtMs = Date.now();
  deps.processes.ensureReaper();
  const command = new CommandProcess(line, { cwd: call.cwd, env, stdin: call.stdin !== undefined });
  const { child, pgid } = command;
  if (call.stdin !== undefined && child.stdin) {
    // A command that exits without reading all of it closes the pipe: that is its business, not an error of the door's.
    child.stdin.on('error', () => undefined);
    child.stdin.end(call.stdin);
  }
  if (pgid !== undefined) deps.processes.track(pgid, { binary: call.binary, command: shown, taskId: call.taskId, workId: null, startedAtMs });
  const limits = watchLimits(deps, command);
  const out = { stdout: '', stderr: '', truncated: false };
  let log: ReturnType<typeof createWriteStream> | null = null;
  // A background command's log is the door's own write: at most capabilities.shell.max_file_mib, and written no
  // faster than the disk takes it (the command's pipes wait meanwhile), so neither the host's disk nor the door's
  // memory grows with what a command prints.
  const maxLogBytes = deps.session.manifest.capabilities.shell.max_file_mib * 1024 * 1024;
  let logBytes = 0;
  let logFull = false;
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    if (log) {
      logBytes += chunk.length;
      if (logBytes > maxLogBytes) {
        if (!logFull) {
          logFull = true;
          log.write(chunk.subarray(0, Math.max(0, chunk.length - (logBytes - maxLogBytes))));
          void command.end();
        }
        return;
      }
      if (!log.write(chunk)) {
        child.stdout?.pause();
        child.stderr?.pause();
        log.once('drain', () => {
          child.stdout?.resume();
          child.stderr?.resume();
        });
      }
      return;
    }
    const text = chunk.toString('utf8');
    if (out[stream].length + text.length > OUTPUT_CAP_BYTES) {
      out[stream] += text.slice(0, Math.max(0, OUTPUT_CAP_BYTES - out[stream].length));
      out.truncated = true;
    } else out[stream] += text;
    call.onOutput(stream, text);
  };
  child.stdout!.on('data', collect('stdout'));
  child.stderr!.on('data', collect('stderr'));

  const onAbort = () => void command.end();
  call.signal.addEventListener('abort', onAbort, { once: true });
  let movedToBackground = false;
  try {
    const grace = call.graceSecs === null ? null : new Promise<'grace'>((resolve) => setTimeout(() => resolve('grace'), call.graceSecs! * 1000).unref());
    const first = await Promise.race([command.exited, command.spawnError, ...(grace ? [grace] : [])]);
    if (first instanceof Error) throw new ToolInputError(`could not start '${call.binary}': ${first.message}`);
    if (first === 'grace') {
      movedToBackground = true;
      call.signal.removeEventListener('abort', onAbort);
      const workId = newId('work');
      mkdirSync(call.logsDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const logFile = path.join(call.logsDir, `${workId}.log`);
      log = createWriteStream(logFile, { mode: PRIVATE_FILE_MODE });
      log.write(out.stdout + out.stderr);
      // The command counts as exited once its log holds all of its output, so a reader of the log sees it whole.
      const stream = log;
      const exitLogged = command.exited.then(async (exit) => {
        if (!(await drained(command.closed))) {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }
        await new Promise<void>((resolve) => stream.end(() => resolve()));
        if (pgid !== undefined) deps.processes.release(pgid);
        const limit = logFull
          ? `note: the command's output passed capabilities.shell.max_file_mib (${maxLogBytes / 1024 / 1024} MiB) in its log: the door ended it`
          : limits.note(exit);
        limits.done();
        return { code: exit.code, limit };
      });
      if (pgid !== undefined) deps.processes.background(pgid, workId);
      deps.background.add({
        workId,
        taskId: call.taskId,
        binary: call.binary,
        binaryPath,
        command: shown,
        startedAtMs,
        logFile,
        pgid: pgid ?? 0,
        exit: exitLogged,
        stop: () => command.stop(),
        exitedAtMs: null,
        exitCode: null,
        limit: null,
        stopped: false,
        exitReported: false,
        waiters: 0,
      });
      const note = `moved to the background after ${call.graceSecs} s; it runs on as work_id: ${workId}\noutput: ${logFile}`;
      return {
        content: fenceToolResult(call.binary, `$ ${shown}\n${note}\n`),
        stdout: out.stdout,
        stderr: out.stderr,
        exitCode: null,
        truncated: out.truncated,
        workId,
        limit: null,
      };
    }
    // A limit's ending signals the whole group: once the shell has exited, its children may still be dying (a loaded
    // machine took more than DRAIN_MS), and they are not holders that "run on".
    await limits.ending();
    const outputEnded = await drained(command.closed);
    const holders = outputEnded ? [] : await command.holders();
    if (!outputEnded) {
      // Children hold the output open: what they write from here on is not this call's; they run on, recorded.
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
    if (pgid !== undefined) deps.processes.release(pgid);
    if (call.signal.aborted) throw call.signal.reason;
    const exitCode = first.code;
    const limit = limits.note(first);
    const body = `$ ${shown}\nExit code: ${exitCode}\nStdout:\n${out.stdout}\nStderr:\n${out.stderr}\n`;
    const notes = [...(limit === null ? [] : [limit]), ...(holders.length > 0 ? [holdersNote(holders)] : [])];
    const content = fenceToolResult(call.binary, body) + notes.map((n) => `\n${n}`).join('');
    return { content, stdout: out.stdout, stderr: out.stderr, exitCode, truncated: out.truncated, workId: null, limit };
  } finally {
    call.signal.removeEventListener('abort', onAbort);
    if (!movedToBackground) limits.done();
  }
}
