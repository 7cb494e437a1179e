import type { ChildProcess } from 'node:child_process';

const KILL_AFTER_MS = 2000;
const WAIT_AFTER_KILL_MS = 3000;

/**
 * SIGTERM to the child's whole process group, SIGKILL 2 s later if it has not exited, then up to 3 s more
 * (seed 004, background-command stop). The child must have been spawned `detached` so it leads its own group.
 */
export async function killProcessGroup(child: ChildProcess, exit: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // The group is already gone.
    }
  };
  signal('SIGTERM');
  const exited = await Promise.race([exit.then(() => true), delay(KILL_AFTER_MS).then(() => false)]);
  if (exited) {
    signal('SIGKILL'); // stragglers that ignored SIGTERM while the leader exited
    return;
  }
  signal('SIGKILL');
  await Promise.race([exit, delay(WAIT_AFTER_KILL_MS)]);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
