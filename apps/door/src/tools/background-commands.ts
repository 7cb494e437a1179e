import { EventEmitter } from 'node:events';
import type { DetachedShellResidue, MurmurTaskMetadata } from '@murmur/protocol';

export interface BackgroundCommand {
  workId: string;
  taskId: string;
  /** The binary as capabilities.shell.allow names it, and as resolved on PATH. */
  binary: string;
  binaryPath: string;
  command: string;
  startedAtMs: number;
  logFile: string;
  /** The process group the command leads (its pid). */
  pgid: number;
  /** Settles once the command exited and its log holds all of its output: its exit code and the limit that ended it, if one did. */
  exit: Promise<{ code: number | null; limit: string | null }>;
  /** Seed 004's stop: SIGTERM to its process group, SIGKILL 2 s later, up to 3 s more for the exit. */
  stop: () => Promise<void>;
  exitedAtMs: number | null;
  exitCode: number | null;
  /** The note naming the resource limit that ended it (docs/sandbox.md, "Resource limits"); never for a stopped command. */
  limit: string | null;
  stopped: boolean;
  /** A background-command call already returned this command's exit, so no completion task reports it again. */
  exitReported: boolean;
  /** A failure in waiting for the command or writing its log (seed 004, wait_error). */
  waitError?: string;
  /** background-command waits in progress: one of them will return the exit, so it is reported. */
  waiters: number;
}

const COMMAND_SHOWN = 200;

/**
 * Shell commands that ran past lifecycle.shell_grace_secs and moved to the background: the session's residue. The
 * task lifecycle reads it through its residue-source interface (what the session leaves running, and what a task
 * ending now leaves behind); nothing here knows tasks. `exited` fires once a command's exit and log are complete.
 */
export class BackgroundCommands extends EventEmitter<{ exited: [BackgroundCommand] }> {
  private readonly commands = new Map<string, BackgroundCommand>();

  add(command: BackgroundCommand): void {
    this.commands.set(command.workId, command);
    command.exit.then(
      ({ code, limit }) => {
        command.exitedAtMs = Date.now();
        command.exitCode = code;
        // A stopped command has no resource limit attributed (seed 004).
        command.limit = command.stopped ? null : limit;
        if (command.waiters > 0) command.exitReported = true;
        this.emit('exited', command);
      },
      (error: unknown) => {
        command.exitedAtMs = Date.now();
        command.waitError = (error as Error).message;
        if (command.waiters > 0) command.exitReported = true;
        this.emit('exited', command);
      },
    );
  }

  get(workId: string): BackgroundCommand | undefined {
    return this.commands.get(workId);
  }

  running(): BackgroundCommand[] {
    return [...this.commands.values()].filter((c) => c.exitedAtMs === null).sort((a, b) => a.startedAtMs - b.startedAtMs);
  }

  /** One residue item per command still running, oldest first. */
  residue(): DetachedShellResidue[] {
    return this.running().map((c) => ({
      kind: 'detached_shell',
      work_id: c.workId,
      binary: c.binary,
      command: c.command,
      started_at_ms: c.startedAtMs,
    }));
  }

  /** metadata.murmur.runningCommands for a task ending now, or undefined when it left none running. */
  runningCommandsOf(taskId: string, endMs: number): MurmurTaskMetadata['runningCommands'] {
    const mine = this.running().filter((c) => c.taskId === taskId);
    if (mine.length === 0) return undefined;
    return mine.map((c) => ({
      workId: c.workId,
      binary: c.binaryPath,
      command: c.command.length > COMMAND_SHOWN ? `${c.command.slice(0, COMMAND_SHOWN)}…` : c.command,
      runningMs: endMs - c.startedAtMs,
    }));
  }

  /** Stops one command (background-command stop, seed 004). */
  async stop(command: BackgroundCommand): Promise<void> {
    command.stopped = true;
    await command.stop();
  }
}
