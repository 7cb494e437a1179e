import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A session's cgroup of the pids controller: every process of its commands is in it, at most `max` at once. */
export interface PidsCgroup {
  /** The cgroup's cgroup.procs: a process that writes its pid there joins it, and so does all it starts after. */
  readonly procs: string;
  readonly max: number;
  /** Removes the cgroup once it is empty (after the session's commands are killed); false while processes remain. */
  release(): boolean;
}

const PREFIX = 'murmur-';

/** The folder of this process's own cgroup in a hierarchy that has the pids controller, from /proc/mounts and /proc/self/cgroup. */
function pidsHierarchy(): string | null {
  let mounts: string;
  let own: string;
  try {
    mounts = readFileSync('/proc/mounts', 'utf8');
    own = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return null;
  }
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (type === 'cgroup' && options?.split(',').includes('pids')) {
      const relative = own.split('\n').find((l) => l.split(':')[1]?.split(',').includes('pids'))?.split(':')[2];
      if (relative !== undefined) return path.join(mountPoint, relative);
    }
    if (type === 'cgroup2') {
      const relative = own.split('\n').find((l) => l.startsWith('0::'))?.slice(3);
      if (relative === undefined) continue;
      const dir = path.join(mountPoint, relative);
      // cgroup v2: the child gets the pids controller only where its parent hands it down.
      try {
        if (readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) return dir;
      } catch {
        // not this one
      }
    }
  }
  return null;
}

/**
 * A cgroup for one session's commands with pids.max = `max` (docs/sandbox.md, "Resource limits"), or null where no
 * pids hierarchy is writable here (an unprivileged user without a delegated cgroup, a container without one).
 * A door killed with SIGKILL leaves its cgroup behind, empty once its reaper has acted; resuming that session takes
 * it again (the name is the session's).
 */
export function openPidsCgroup(sessionId: string, max: number): PidsCgroup | null {
  const parent = pidsHierarchy();
  if (parent === null) return null;
  const dir = path.join(parent, `${PREFIX}${sessionId}`);
  try {
    if (!existsSync(dir)) mkdirSync(dir);
    writeFileSync(path.join(dir, 'pids.max'), String(max));
  } catch {
    tryRmdir(dir);
    return null;
  }
  return { procs: path.join(dir, 'cgroup.procs'), max, release: () => tryRmdir(dir) };
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}
