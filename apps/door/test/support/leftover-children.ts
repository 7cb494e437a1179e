/**
 * The doors and `mur` processes a test file starts, stopped when the file ends if its own hooks did not stop them.
 * A before() that fails half-way (one of four doors failed to start, say) skips the after() that would have stopped
 * the others; their pipes then keep the file's process alive, and `node --test` waits for it for ever — one hung
 * file hangs the whole suite until CI's limit.
 *
 * This module registers an after() on the file's root test when the file imports it, so before the file's own root
 * after() hooks, which then run after it. So the hook only arms an unref'd timer: when the file's hooks have stopped
 * everything, nothing keeps the process alive and it exits without waiting for it; when something is left, its pipes
 * keep the process alive, the timer fires, and each child still running gets SIGTERM, then SIGKILL after a grace.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';

/** How long the file's own after() hooks have before what they left is stopped. */
const HOOKS_MS = 30_000;
const GRACE_MS = 5_000;
const alive = new Set<ChildProcess>();

after(() => {
  setTimeout(() => void stopLeft(), HOOKS_MS).unref();
});

async function stopLeft(): Promise<void> {
  const left = [...alive];
  if (left.length === 0) return;
  // Named by file and command, so the test that should have stopped them can be found from a CI log.
  const file = path.basename(process.argv[1] ?? 'this file');
  const commands = left.map((child) =>
    child.spawnargs
      .slice(1)
      .map((arg) => path.basename(arg))
      .join(' ')
      .slice(0, 80),
  );
  process.stderr.write(`leftover-children: ${file}: ${left.length} process(es) still running at its end, stopping them: ${commands.join('; ')}\n`);
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
}

/** `child`, stopped at the file's end if it is still running then. */
export function stoppedAtEnd<C extends ChildProcess>(child: C): C {
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  return child;
}
