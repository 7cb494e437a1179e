import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../common/private-files.js';
import { groupAlive, killProcessGroup, readStat } from './process-group.js';

/** One process group a command of this session leads, as recorded in the session's records. */
export interface RecordedGroup {
  pgid: number;
  /** The leader's start time (/proc stat field 22), which tells it from a later process given the same pid. */
  startTime: string;
  binary: string;
  command: string;
  taskId: string;
  /** The background handle, once the command moved to the background. */
  workId: string | null;
  startedAtMs: number;
}

const SWEEP_MS = 2000;

/**
 * The environment variable every command of a session carries, naming the session. A command's descendants inherit
 * it, also those that left its process group (setsid) or were started in the instant between a spawn and its record,
 * so the session's end finds them by it as well as by their recorded groups.
 */
export const COMMAND_SESSION_ENV = 'MURMUR_COMMAND_SESSION';

/**
 * The environment variable a session's reaper (and the `sleep` it polls with) carries, naming the session: a resumed
 * launch ends the killed run's reaper by it, since it does the reaper's work itself.
 */
const REAPER_SESSION_ENV = 'MURMUR_REAPER_SESSION';

/** The pids of live processes carrying this session's mark, read from /proc/<pid>/environ (never this process). */
function markedProcesses(sessionId: string, variable = COMMAND_SESSION_ENV): number[] {
  const mark = Buffer.from(`${variable}=${sessionId}\0`);
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      if (environ.includes(mark) && readStat(Number(entry))?.state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

function killMarked(sessionId: string, variable = COMMAND_SESSION_ENV): number[] {
  const pids = markedProcesses(sessionId, variable);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Whether the recorded group still runs: its leader alive with the recorded start time, or the leader gone while
 * members of its group remain (no pid is reused as a group id while that group has members, so such a group is ours).
 */
function stillRuns(group: Pick<RecordedGroup, 'pgid' | 'startTime'>): boolean {
  const leader = readStat(group.pgid);
  if (leader) return leader.startTime === group.startTime && groupAlive(group.pgid);
  return groupAlive(group.pgid);
}

/**
 * The reaper: a tiny shell process that outlives a door killed with SIGKILL. It polls the door's pid (and start
 * time, against pid reuse) twice a second; once the door is gone it kills, with SIGKILL, every group still recorded
 * under `dir` by the rule of `stillRuns`, and exits. The files stay, so a resumed launch reports what was lost.
 */
const REAPER_SCRIPT = `
door=$1; door_start=$2; dir=$3; session=$4
start_of() { read -r l < "/proc/$1/stat" 2>/dev/null || return 1; l=\${l##*) }; set -- $l; echo "\${20}"; }
while [ "$(start_of "$door")" = "$door_start" ]; do sleep 0.5; done
for f in "$dir"/*; do
  pg=\${f##*/}
  case $pg in ''|*[!0-9]*) continue ;; esac
  read -r want < "$f" || continue
  if [ -e "/proc/$pg" ]; then [ "$(start_of "$pg")" = "$want" ] || continue; fi
  kill -KILL "-$pg" 2>/dev/null
done
for e in $(grep -la "${COMMAND_SESSION_ENV}=$session" /proc/[0-9]*/environ 2>/dev/null); do
  p=\${e#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null
done
`;

/**
 * Every process group a command of this session started, foreground or background, recorded in the session's
 * records (`processes/<pgid>`: the leader's start time, then the record as JSON) from its spawn until the group is
 * empty. The session's end kills them all; a door that dies without ending is covered by the reaper, and a resumed
 * launch kills any survivor and reports them as lost (docs/agent-loop.md, "Processes").
 */
export class ProcessRegistry {
  private readonly groups = new Map<number, RecordedGroup>();
  private reaper: ChildProcess | null = null;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly sessionId: string,
  ) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  }

  /** Records a command's group as soon as it is spawned; its pid leads the group (spawned `detached`). */
  track(pid: number, info: Omit<RecordedGroup, 'pgid' | 'startTime'>): void {
    const group: RecordedGroup = { pgid: pid, startTime: readStat(pid)?.startTime ?? '', ...info };
    this.groups.set(pid, group);
    this.write(group);
    this.ensureReaper();
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /** The command moved to the background: its record names its handle. */
  background(pgid: number, workId: string): void {
    const group = this.groups.get(pgid);
    if (!group) return;
    group.workId = workId;
    this.write(group);
  }

  /** Forgets a group whose last process is gone. */
  release(pgid: number): void {
    if (groupAlive(pgid)) return;
    this.groups.delete(pgid);
    rmSync(path.join(this.dir, String(pgid)), { force: true });
  }

  tracked(): RecordedGroup[] {
    return [...this.groups.values()];
  }

  /**
   * The session ends: every group is stopped (SIGTERM, SIGKILL 2 s later) and forgotten; whatever else carries the
   * session's mark (a process that left its group) is killed; then the reaper goes.
   */
  async killAll(): Promise<void> {
    await Promise.all([...this.groups.keys()].map((pgid) => killProcessGroup(pgid)));
    killMarked(this.sessionId);
    for (const pgid of [...this.groups.keys()]) this.release(pgid);
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.reaper?.kill('SIGTERM');
    this.reaper = null;
  }

  private sweep(): void {
    for (const pgid of [...this.groups.keys()]) this.release(pgid);
  }

  private write(group: RecordedGroup): void {
    writeFileSync(path.join(this.dir, String(group.pgid)), `${group.startTime}\n${JSON.stringify(group)}\n`, { mode: PRIVATE_FILE_MODE });
  }

  /**
   * Starts the reaper unless it runs: called before a command is spawned (and again when it is recorded), so that a
   * door killed in the instant after its first command started is already watched.
   */
  ensureReaper(): void {
    if (this.reaper) return;
    const doorStart = readStat(process.pid)?.startTime;
    if (!doorStart) return;
    this.reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'murmur-reaper', String(process.pid), doorStart, this.dir, this.sessionId], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [REAPER_SESSION_ENV]: this.sessionId },
    });
    this.reaper.on('error', () => undefined);
    this.reaper.unref();
  }

  /**
   * Opening the records of a session that stopped: a reaper the previous run left is ended first (a launch that
   * follows a kill -9 within its half-second poll finds it still waiting; what it would do is done here), then every
   * group a previous run recorded is killed if it still runs, and reported, then forgotten. Returns what was lost,
   * oldest first.
   */
  static reopen(dir: string, sessionId: string): { group: RecordedGroup; wasRunning: boolean }[] {
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => /^\d+$/.test(f));
    } catch {
      // No records: no previous run of this session started a command, nor so a reaper.
      return [];
    }
    killMarked(sessionId, REAPER_SESSION_ENV);
    const lost: { group: RecordedGroup; wasRunning: boolean }[] = [];
    for (const file of files) {
      const full = path.join(dir, file);
      try {
        const group = JSON.parse(readFileSync(full, 'utf8').split('\n')[1]) as RecordedGroup;
        const wasRunning = stillRuns(group);
        if (wasRunning) {
          try {
            process.kill(-group.pgid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        lost.push({ group, wasRunning });
      } catch {
        // A half-written record names nothing that can be checked.
      }
      rmSync(full, { force: true });
    }
    // A process of the session no record names (one that left its group, or was spawned in the instant before its
    // record was written) is killed too, by the session's mark.
    killMarked(sessionId);
    return lost.sort((a, b) => a.group.startedAtMs - b.group.startedAtMs);
  }
}
