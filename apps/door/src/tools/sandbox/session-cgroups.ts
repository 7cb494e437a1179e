import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The controllers a session's commands are held by (docs/sandbox.md, "Resource limits"). */
type Controller = 'pids' | 'memory';

/** A session's cgroups: every process of its commands is in them, at most `max_processes` at once, within `max_memory_mib`. */
export interface SessionCgroups {
  /** The cgroup.procs files the launcher writes its pid to, one per hierarchy: it and all it starts join. */
  readonly procs: readonly string[];
  /** The controllers bounded here (a controller no writable hierarchy offers is not). */
  readonly controllers: ReadonlySet<Controller>;
  /** How many processes the kernel's OOM killer has ended in the memory cgroup so far; null without one. */
  oomKills(): number | null;
  /** Removes the cgroups once empty (after the session's commands are killed); false while processes remain. */
  release(): boolean;
}

const PREFIX = 'murmur-';

interface Hierarchy {
  /** This process's own cgroup folder in the hierarchy. */
  dir: string;
  version: 1 | 2;
  controllers: Controller[];
}

/** The hierarchies with the pids or memory controller, and this process's cgroup in each (/proc/mounts, /proc/self/cgroup). */
function hierarchies(): Hierarchy[] {
  let mounts: string;
  let own: string;
  try {
    mounts = readFileSync('/proc/mounts', 'utf8');
    own = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return [];
  }
  const ownLines = own.split('\n').map((line) => line.split(':'));
  const found: Hierarchy[] = [];
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (type === 'cgroup') {
      const controllers = (['pids', 'memory'] as const).filter((c) => options?.split(',').includes(c));
      const relative = ownLines.find((l) => controllers.some((c) => l[1]?.split(',').includes(c)))?.[2];
      if (controllers.length > 0 && relative !== undefined) found.push({ dir: path.join(mountPoint, relative), version: 1, controllers });
    }
    if (type === 'cgroup2') {
      const relative = ownLines.find((l) => l[0] === '0' && l[1] === '')?.[2];
      if (relative === undefined) continue;
      const dir = path.join(mountPoint, relative);
      // cgroup v2: a child gets a controller only where its parent hands it down.
      try {
        const handed = readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
        const controllers = (['pids', 'memory'] as const).filter((c) => handed.includes(c));
        if (controllers.length > 0) found.push({ dir, version: 2, controllers });
      } catch {
        // not writable here
      }
    }
  }
  return found;
}

/** The files a controller's bound and its OOM count live in, per cgroup version. */
const FILES = {
  1: { pidsMax: 'pids.max', memoryMax: 'memory.limit_in_bytes', memorySwapMax: 'memory.memsw.limit_in_bytes', oomEvents: 'memory.oom_control' },
  2: { pidsMax: 'pids.max', memoryMax: 'memory.max', memorySwapMax: null, oomEvents: 'memory.events' },
} as const;

/**
 * The session's cgroup `murmur-<session id>` in every hierarchy that has the pids or memory controller and can be
 * written here, bounded to `maxProcesses` and `maxMemoryMib`; null where none can be made (an unprivileged user
 * without a delegated cgroup). A door killed with SIGKILL leaves its cgroups behind, empty once its reaper has acted;
 * resuming that session takes them again (the name is the session's).
 */
export function openSessionCgroups(sessionId: string, limits: { maxProcesses: number; maxMemoryMib: number }): SessionCgroups | null {
  const made: { dir: string; version: 1 | 2; controllers: Controller[] }[] = [];
  for (const hierarchy of hierarchies()) {
    const dir = path.join(hierarchy.dir, `${PREFIX}${sessionId}`);
    const files = FILES[hierarchy.version];
    try {
      if (!existsSync(dir)) mkdirSync(dir);
      if (hierarchy.controllers.includes('pids')) writeFileSync(path.join(dir, files.pidsMax), String(limits.maxProcesses));
      if (hierarchy.controllers.includes('memory')) {
        const bytes = String(limits.maxMemoryMib * 1024 * 1024);
        const swap = files.memorySwapMax === null ? null : path.join(dir, files.memorySwapMax);
        // cgroup v1 counts swap apart: memory and swap together get the same bound, so swapping does not pass it. The
        // kernel keeps memory ≤ memory+swap at every write, so a bound raised on a resumed session's cgroup goes
        // memory+swap first.
        const writes = [path.join(dir, files.memoryMax), ...(swap !== null && existsSync(swap) ? [swap] : [])];
        try {
          for (const file of writes) writeFileSync(file, bytes);
        } catch {
          for (const file of writes.reverse()) writeFileSync(file, bytes);
        }
      }
      made.push({ dir, version: hierarchy.version, controllers: hierarchy.controllers });
    } catch {
      tryRmdir(dir);
    }
  }
  if (made.length === 0) return null;
  const memory = made.find((m) => m.controllers.includes('memory'));
  return {
    procs: made.map((m) => path.join(m.dir, 'cgroup.procs')),
    controllers: new Set(made.flatMap((m) => m.controllers)),
    oomKills: () => (memory === undefined ? null : oomKillsIn(path.join(memory.dir, FILES[memory.version].oomEvents))),
    release: () => made.map((m) => tryRmdir(m.dir)).every(Boolean),
  };
}

/**
 * Removes the cgroups a session's door left behind when it was killed with SIGKILL (its registry entry stale:
 * docs/cli.md, "Stale registry entries"). Only an empty cgroup can be removed, so one a process still holds stays.
 * Returns how many were removed.
 */
export function removeStaleSessionCgroups(sessionId: string): number {
  return hierarchies().filter((h) => {
    const dir = path.join(h.dir, `${PREFIX}${sessionId}`);
    return existsSync(dir) && tryRmdir(dir);
  }).length;
}

/** The `oom_kill N` line of memory.oom_control (v1) or memory.events (v2). */
function oomKillsIn(file: string): number | null {
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
