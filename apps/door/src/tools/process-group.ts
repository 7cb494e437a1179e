import { readdirSync, readFileSync } from 'node:fs';

const KILL_AFTER_MS = 2000;
const WAIT_AFTER_KILL_MS = 3000;
const POLL_MS = 20;

/**
 * Whether any process of the group still runs. kill 0 to the group answers ESRCH once its last member is gone; a
 * member that exited but was never reaped (an orphan whose new parent does not reap, as in some containers) still
 * answers it, so a yes is confirmed against /proc, where such a zombie reads state Z.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return groupMembers(pgid).length > 0;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Resolves true once the group is empty, false when `ms` passed first. */
async function groupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
  return true;
}

/**
 * SIGTERM to the whole process group, SIGKILL 2 s later to whatever of it still runs (a leader that ignores SIGTERM,
 * or children that outlived it), then up to 3 s more for the group to empty (seed 004, background-command stop).
 * The command must have been spawned `detached`, so its group id is its pid.
 */
export async function killProcessGroup(pgid: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await groupGone(pgid, KILL_AFTER_MS)) return;
  signalGroup(pgid, 'SIGKILL');
  await groupGone(pgid, WAIT_AFTER_KILL_MS);
}

/** A live process of a group: its pid and command name. */
export interface GroupMember {
  pid: number;
  comm: string;
}

/** The processes whose process group is `pgid`, read from /proc (stat fields after the command name, which may hold spaces). */
export function groupMembers(pgid: number): GroupMember[] {
  const members: GroupMember[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return members;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') members.push({ pid: Number(entry), comm: stat.comm });
  }
  return members.sort((a, b) => a.pid - b.pid);
}

/** /proc/<pid>/stat's command name, state, process group and start time (clock ticks since boot), or null when it is gone. */
export function readStat(pid: number): { comm: string; state: string; pgrp: number; startTime: string } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < 0) return null;
  // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
  // cstime priority nice num_threads itrealvalue starttime …
  const rest = text.slice(close + 2).split(' ');
  return { comm: text.slice(open + 1, close), state: rest[0], pgrp: Number(rest[2]), startTime: rest[19] };
}

/**
 * Not unref'd: a door closing waits here for its commands to die, and an unref'd timer would let the event loop
 * run empty and the process exit (code 0) before the wait — and the rest of the close — finished.
 */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
