import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Duplex } from 'node:stream';
import { exitCodeOf } from './exit-code.js';
import { type GroupMember, groupMembers, killProcessGroup } from './process-group.js';
import { InitChannel } from './sandbox/init-channel.js';
import type { CommandLine } from './sandbox/sandbox.js';

/** How a command ended: its exit code as a shell reports it (128 + n for signal n), and that signal, if one ended it. */
export interface CommandExit {
  code: number | null;
  signal: number | null;
}

/** After seed 004's stop: SIGKILL comes 2 s after SIGTERM, and the door waits up to 3 s more for the exit. */
const STOP_WAIT_MS = 5000;

/**
 * One command's process: plain (the door's child is the command) or sandboxed (the door's child is the launcher, then
 * bubblewrap; the command's exit, its holders and its stop go through the sandbox's init, tools/sandbox/init-channel.ts).
 * Spawned detached: its process group is its pid, which is what is recorded, signalled and reaped.
 */
export class CommandProcess {
  readonly child: ChildProcess;
  /** The process group the door records and ends: the command's own, or the whole sandbox's. */
  readonly pgid: number | undefined;
  /** The command's own exit (not its output's end). */
  readonly exited: Promise<CommandExit>;
  /** The output has ended: every process holding it is gone. */
  readonly closed: Promise<void>;
  readonly spawnError: Promise<Error>;
  private readonly init: InitChannel | null;

  constructor(line: CommandLine, options: { cwd: string; env: Record<string, string>; stdin: boolean }) {
    const fd3 = line.protocol === 'init' ? 'pipe' : 'ignore';
    this.child = spawn(line.file, line.args, {
      cwd: options.cwd,
      detached: true,
      env: options.env,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', fd3],
    });
    this.pgid = this.child.pid;
    const processExit = new Promise<CommandExit>((resolve) => {
      this.child.once('exit', (code, signal) =>
        resolve({ code: exitCodeOf(code, signal), signal: signal === null ? null : (constants.signals[signal] ?? null) }),
      );
      this.child.once('error', () => resolve({ code: null, signal: null }));
    });
    this.init = line.protocol === 'init' && this.child.stdio[3] ? new InitChannel(this.child.stdio[3] as Duplex) : null;
    // A sandbox that could not start the command reports no exit: bubblewrap's own stands for it.
    this.exited = this.init === null ? processExit : this.init.exit.then((exit) => exit ?? processExit);
    this.closed = new Promise<void>((resolve) => {
      this.child.once('close', () => resolve());
      this.child.once('error', () => resolve());
    });
    this.spawnError = new Promise<Error>((resolve) => this.child.once('error', resolve));
  }

  /** The processes still running that the command started (never the sandbox's own). */
  async holders(): Promise<GroupMember[]> {
    if (this.init !== null) return (await this.init.holders()).map(({ pid, comm }) => ({ pid, comm }));
    return this.pgid === undefined ? [] : groupMembers(this.pgid);
  }

  /**
   * Seed 004's stop: SIGTERM to the command's process group, SIGKILL 2 s later if it still has a process, then up to
   * 3 s more for the exit. A process that left the group (setsid) is not reached.
   */
  async stop(): Promise<void> {
    if (this.init === null) {
      if (this.pgid !== undefined) await killProcessGroup(this.pgid);
      return;
    }
    this.init.stop();
    let timer: NodeJS.Timeout | undefined;
    const reported = await Promise.race([
      this.exited.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_WAIT_MS))),
    ]);
    clearTimeout(timer);
    // An init that did not answer in time: the whole sandbox goes.
    if (!reported) await this.end();
  }

  /** Ends everything the command started, escapees included: a cancel, the workdir's bound, the session's end. */
  async end(): Promise<void> {
    if (this.pgid !== undefined) await killProcessGroup(this.pgid);
  }
}
