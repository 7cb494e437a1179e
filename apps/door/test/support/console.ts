import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnMur } from './client-cli.js';
import { tempDir } from './door-process.js';

/** A door given with `--door URL`, and its `--token-file F` when it has one. */
export interface ConsoleDoorArg {
  url: string;
  tokenFile?: string;
}

export interface TestConsole {
  url: string;
  pid: number;
  /** Stops it as an operator does (SIGTERM) and resolves once it has exited. */
  close(): Promise<void>;
}

/** The command-line arguments that add `doors` to `mur console` (docs/cli.md, "mur console"). */
function doorArgs(doors: readonly ConsoleDoorArg[]): string[] {
  return doors.flatMap((d) => ['--door', d.url, ...(d.tokenFile === undefined ? [] : ['--token-file', d.tokenFile])]);
}

/**
 * A real `MURMUR_HOME=<home> mur console --port 0 --json` process, over a stand-in for the console's built files
 * (MURMUR_CONSOLE_DIST: the server needs an index.html; the tests read its APIs). Resolves with the address it printed.
 */
export async function startTestConsole(home: string, options: { host?: string; doors?: readonly ConsoleDoorArg[] } = {}): Promise<TestConsole> {
  const dist = tempDir('dist');
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title>');
  const args = ['console', '--port', '0', '--json', '--host', options.host ?? '127.0.0.1', ...doorArgs(options.doors ?? [])];
  const mur = spawnMur(args, home, { MURMUR_CONSOLE_DIST: dist });
  try {
    // A deadline for a console that never starts, not a wait: a loaded machine starting doors beside it can take seconds.
    const line = await mur.waitFor(/\{"url":"[^"]+"\}\n/, 'mur console to print its address', { timeoutMs: 60_000 });
    const { url } = JSON.parse(line) as { url: string };
    return {
      url,
      pid: mur.child.pid!,
      close: async () => {
        mur.kill('SIGTERM');
        await mur.exited;
      },
    };
  } catch (error) {
    mur.kill('SIGKILL');
    throw error;
  }
}

/** Consoles started at once; if one fails to start, the others are closed before the failure is thrown. */
export async function startedTogether(starting: Promise<TestConsole>[]): Promise<TestConsole[]> {
  const settled = await Promise.allSettled(starting);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed === undefined) return settled.map((s) => (s as PromiseFulfilledResult<TestConsole>).value);
  await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
  throw failed.reason;
}
