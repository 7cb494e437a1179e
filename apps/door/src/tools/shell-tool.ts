import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../common/private-files.js';
import path from 'node:path';
import { newId } from '../common/ids.js';
import type { BackgroundCommands } from './background-commands.js';
import { exitCodeOf } from './exit-code.js';
import { type GroupMember, groupMembers, killProcessGroup } from './process-group.js';
import type { ProcessRegistry } from './process-registry.js';
import { RELAY_SCRIPT_PATH, WRAPPER_NAME } from './sandbox/bwrap-args.js';
import type { SessionSandbox } from './sandbox/session-sandbox.js';
import { ToolInputError } from './tool-call.js';
import { fenceToolResult } from '../auth/untrusted-fence.js';

/** Bytes of each stream kept for the model; past it the result says truncated. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

/**
 * How long output is still read after the shell exits: what its children wrote just before is kept, and a child
 * that holds the output open (a server started with `&`) does not hold the call (docs/agent-loop.md, "Processes").
 */
export const DRAIN_MS = 50;

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
}

export interface ShellDeps {
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

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** A status line the sandbox's wrapper writes on fd 3 (tools/sandbox/bwrap-args.ts). */
const EXIT_LINE = /^exit (\d+)$/m;

/**
 * The command's own exit (not its output's end), and its output's end. In the sandbox the process spawned is
 * bubblewrap, which lasts while anything the command started runs: the command's exit is the wrapper's `exit <status>`
 * line on fd 3 (a status above 128 is the signal's 128 + n, as exitCodeOf writes it). A sandbox that could not start
 * the command writes none, and bubblewrap's own exit stands for it.
 */
function watch(child: ChildProcess, statusOnFd3: boolean): { exited: Promise<Exit>; closed: Promise<void>; spawnError: Promise<Error> } {
  const processExit = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const status = statusOnFd3 ? (child.stdio[3] as NodeJS.ReadableStream | null | undefined) : null;
  const exited = !status
    ? processExit
    : new Promise<Exit>((resolve) => {
        let text = '';
        status.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          const exit = EXIT_LINE.exec(text);
          if (exit) resolve({ code: Number(exit[1]), signal: null });
        });
        status.on('error', () => undefined);
        status.once('close', () => void processExit.then(resolve));
      });
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  return { exited, closed, spawnError: new Promise<Error>((resolve) => child.once('error', resolve)) };
}

/** The sandbox's own processes in a command's group (bubblewrap, the wrapper, the relay), which hold nothing of the command's. */
function isSandboxScaffold(member: GroupMember): boolean {
  if (member.comm === 'bwrap') return true;
  try {
    const argv = readFileSync(`/proc/${member.pid}/cmdline`, 'utf8').split('\0');
    return argv[3] === WRAPPER_NAME || argv[1] === RELAY_SCRIPT_PATH;
  } catch {
    return false;
  }
}

/** Waits for the output to end, for at most DRAIN_MS; true when it ended. */
async function drained(closed: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([closed.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DRAIN_MS)))]);
  clearTimeout(timer);
  return ended;
}

/** The note after the fence naming the processes that still hold a finished command's output. */
export function holdersNote(holders: GroupMember[]): string {
  const named = holders.map((h) => `${h.pid} ${h.comm}`).join(', ');
  const count = holders.length === 1 ? '1 process it started still holds' : `${holders.length} processes it started still hold`;
  return `note: the command exited, but ${count} its output and runs on until the session ends: ${named}`;
}

/**
 * Runs one shell binary as a real subprocess in the workdir, in its own process group, recorded in the session's
 * process registry from its spawn. The call returns when the shell exits (output still held by a child is read
 * for DRAIN_MS more, and the holders are named in a note after the fence), or moves to the background once
 * lifecycle.shell_grace_secs pass.
 */
export async function runShell(call: ShellCall, deps: ShellDeps): Promise<ShellResult> {
  const { args, shown } = readShellInput(call.binary, call.input);
  const { sandbox, env } = deps.sandbox;
  const binaryPath = sandbox.resolve(call.binary);
  if (binaryPath === null) throw new ToolInputError(sandbox.unreachable(call.binary) ?? `shell binary '${call.binary}' is not installed on this host`);
  const startedAtMs = Date.now();
  deps.processes.ensureReaper();
  const line = sandbox.commandLine(binaryPath, args, call.cwd);
  const child = spawn(line.file, line.args, { cwd: call.cwd, detached: true, env, stdio: [call.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', line.statusOnFd3 ? 'pipe' : 'ignore'] });
  if (call.stdin !== undefined && child.stdin) {
    // A command that exits without reading all of it closes the pipe: that is its business, not an error of the door's.
    child.stdin.on('error', () => undefined);
    child.stdin.end(call.stdin);
  }
  const pgid = child.pid;
  if (pgid !== undefined) deps.processes.track(pgid, { binary: call.binary, command: shown, taskId: call.taskId, workId: null, startedAtMs });
  const { exited, closed, spawnError } = watch(child, line.statusOnFd3);
  const out = { stdout: '', stderr: '', truncated: false };
  let log: ReturnType<typeof createWriteStream> | null = null;
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (log) {
      log.write(chunk);
      return;
    }
    if (out[stream].length + text.length > OUTPUT_CAP_BYTES) {
      out[stream] += text.slice(0, Math.max(0, OUTPUT_CAP_BYTES - out[stream].length));
      out.truncated = true;
    } else out[stream] += text;
    call.onOutput(stream, text);
  };
  child.stdout!.on('data', collect('stdout'));
  child.stderr!.on('data', collect('stderr'));

  const onAbort = () => {
    if (pgid !== undefined) void killProcessGroup(pgid);
  };
  call.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const grace = call.graceSecs === null ? null : new Promise<'grace'>((resolve) => setTimeout(() => resolve('grace'), call.graceSecs! * 1000).unref());
    const first = await Promise.race([exited, spawnError, ...(grace ? [grace] : [])]);
    if (first instanceof Error) throw new ToolInputError(`could not start '${call.binary}': ${first.message}`);
    if (first === 'grace') {
      call.signal.removeEventListener('abort', onAbort);
      const workId = newId('work');
      mkdirSync(call.logsDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const logFile = path.join(call.logsDir, `${workId}.log`);
      log = createWriteStream(logFile, { mode: PRIVATE_FILE_MODE });
      log.write(out.stdout + out.stderr);
      // The command counts as exited once its log holds all of its output, so a reader of the log sees it whole.
      const stream = log;
      const exitLogged = exited.then(async (result) => {
        if (!(await drained(closed))) {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }
        await new Promise<void>((resolve) => stream.end(() => resolve()));
        if (pgid !== undefined) deps.processes.release(pgid);
        return result;
      });
      if (pgid !== undefined) deps.processes.background(pgid, workId);
      deps.background.add({ workId, taskId: call.taskId, binary: call.binary, binaryPath, command: shown, startedAtMs, logFile, pgid: pgid ?? 0, exit: exitLogged, exitedAtMs: null, exitCode: null, stopped: false, exitReported: false, waiters: 0 });
      const note = `moved to the background after ${call.graceSecs} s; it runs on as work_id: ${workId}\noutput: ${logFile}`;
      return { content: fenceToolResult(call.binary, `$ ${shown}\n${note}\n`), stdout: out.stdout, stderr: out.stderr, exitCode: null, truncated: out.truncated, workId };
    }
    const outputEnded = await drained(closed);
    const holders = outputEnded || pgid === undefined ? [] : groupMembers(pgid).filter((m) => !isSandboxScaffold(m));
    if (!outputEnded) {
      // Children hold the output open: what they write from here on is not this call's; they run on, recorded.
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
    if (pgid !== undefined) deps.processes.release(pgid);
    if (call.signal.aborted) throw call.signal.reason;
    const exitCode = exitCodeOf(first.code, first.signal);
    const body = `$ ${shown}\nExit code: ${exitCode}\nStdout:\n${out.stdout}\nStderr:\n${out.stderr}\n`;
    const content = fenceToolResult(call.binary, body) + (holders.length > 0 ? `\n${holdersNote(holders)}` : '');
    return { content, stdout: out.stdout, stderr: out.stderr, exitCode, truncated: out.truncated, workId: null };
  } finally {
    call.signal.removeEventListener('abort', onAbort);
  }
}
