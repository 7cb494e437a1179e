import type { ChildProcess } from 'node:child_process';
import type { DetachedShellResidue, MurmurTaskMetadata } from '@murmur/protocol';
import { exitCodeOf } from './exit-code.js';
import { killProcessGroup } from './process-group.js';

export interface BackgroundCommand {
  workId: string;
  taskId: string;
  /** The binary as capabilities.shell.allow names it, and as resolved on PATH. */
  binary: string;
  binaryPath: string;
  command: string;
  startedAtMs: number;
  logFile: string;
  child: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitedAtMs: number | null;
  exitCode: number | null;
  stopped: boolean;
}

const COMMAND_SHOWN = 200;

/**
 * Shell commands that ran past lifecycle.shell_grace_secs and moved to the background: the session's residue. The
 * task lifecycle reads it through its residue-source interface (what the session leaves running, and what a task
 * ending now leaves behind); nothing here knows tasks.
 */
export class BackgroundCommands {
  private readonly commands = new Map<string, BackgroundCommand>();

  add(command: BackgroundCommand): void {
    this.commands.set(command.workId, command);
    void command.exit.then(({ code, signal }) => {
      command.exitedAtMs = Date.now();
      command.exitCode = exitCodeOf(code, signal);
    });
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

  /** The session's end kills every command still running, with its process group. */
  async killAll(): Promise<void> {
    await Promise.all(this.running().map((c) => killProcessGroup(c.child, c.exit)));
  }
}
