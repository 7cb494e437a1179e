/**
 * CPU time, to tell which side was saturated and whether anything else competed: the server process's, the bench
 * process's own, and the whole machine's (from /proc; null where /proc is not available).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

function readProc(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** User + system CPU seconds of `pid` so far. */
export function cpuSecondsOf(pid: number): number | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

/** CPU seconds of this process (every thread): the load generator's share. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** CPU seconds the whole machine was busy so far, all cores together, counting time stolen by the hypervisor. */
export function machineBusySeconds(): number | null {
  const stat = readProc('/proc/stat');
  const line = stat?.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + (steal || 0)) / clockTicks();
}
