/**
 * The doors and `mur` processes a test file starts, stopped when the file ends if its own hooks did not stop them.
 * A before() that fails half-way (one of four doors failed to start, say) skips the after() that would have stopped
 * the others; their pipes then keep the file's process alive, and `node --test` waits for it for ever — one hung
 * file hangs the whole suite until CI's limit. This registers one after() on the file's root test, which runs once
 * every other hook has: each child still running gets SIGTERM, then SIGKILL if it has not exited within a grace.
 */
import type { ChildProcess } from 'node:child_process';
import { after } from 'node:test';

const GRACE_MS = 5_000;
const alive = new Set<ChildProcess>();

after(async () => {
  const left = [...alive];
  if (left.length === 0) return;
  process.stderr.write(`leftover-children: ${left.length} process(es) this file started were still running at its end; stopping them\n`);
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill('SIGKILL'), GRACE_MS);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
});

/** `child`, stopped at the file's end if it is still running then. */
export function stoppedAtEnd<C extends ChildProcess>(child: C): C {
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  return child;
}
