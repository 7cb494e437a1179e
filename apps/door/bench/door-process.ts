/** A real door as a subprocess: `mur run DIR --json`, as the tests start one, under the bench's MURMUR_HOME. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './children.js';

/** The `mur` users run: dist/bench/door-process.js → bin/mur.js, which runs the bundle the build makes. */
export const MUR_CLI = fileURLToPath(new URL('../../bin/mur.js', import.meta.url));

export interface DoorProcess {
  sessionId: string;
  url: string;
  pid: number;
  recordsDir: string;
  /** Milliseconds from spawn to the announcement, i.e. until the door listens with its store open. */
  startMs: number;
  stop(): Promise<void>;
}

export interface DoorOptions {
  home: string;
  capsuleDir: string;
  resume?: string;
  /** Extra node flags for the door process, e.g. --cpu-prof. */
  nodeFlags?: string[];
}

interface Announcement {
  sessionId: string;
  url: string;
  pid: number;
  recordsDir: string;
}

function isAnnouncement(value: unknown): value is Announcement {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.sessionId === 'string' && typeof v.url === 'string' && typeof v.pid === 'number' && typeof v.recordsDir === 'string';
}

export async function startDoor(options: DoorOptions): Promise<DoorProcess> {
  const args = [...(options.nodeFlags ?? []), MUR_CLI, 'run', options.capsuleDir, '--json'];
  if (options.resume !== undefined) args.push('--resume', options.resume);
  const started = performance.now();
  const child: ChildProcess = track(spawn(process.execPath, args, { env: { ...process.env, MURMUR_HOME: options.home }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`mur run exited (${code ?? signal}) before announcing: ${stderr.trim()}`));
    child.once('exit', onExit);
    child.once('error', reject);
    lines.once('line', (line) => {
      child.off('exit', onExit);
      resolve(line);
    });
  });
  const startMs = performance.now() - started;
  const announced: unknown = JSON.parse(first);
  if (!isAnnouncement(announced)) {
    await stopChild(child);
    throw new Error(`mur run announced something unexpected: ${first}`);
  }
  return { sessionId: announced.sessionId, url: announced.url, pid: announced.pid, recordsDir: announced.recordsDir, startMs, stop: () => stopChild(child) };
}
