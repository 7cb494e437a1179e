import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, writePrivateFile } from './private-files.js';
import { murmurHome } from './stage-session.js';

/** What a running session registers so `mur ps` and the console can find it. */
export interface SessionEntry {
  sessionId: string;
  name: string;
  version: string;
  url: string;
  pid: number;
  capsuleDir: string;
  recordsDir: string;
  startedAt: string;
}

function registryDir(): string {
  return path.join(murmurHome(), 'sessions');
}

export function register(entry: SessionEntry): void {
  makePrivateDir(registryDir());
  writePrivateFile(path.join(registryDir(), `${entry.sessionId}.json`), `${JSON.stringify(entry, null, 2)}\n`);
}

export function unregister(sessionId: string): void {
  rmSync(path.join(registryDir(), `${sessionId}.json`), { force: true });
}

/** Whether a process with this pid exists (EPERM: it exists, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Every registered session, each marked stale when its process is gone (the entry is reported, not trusted). */
export function listSessions(): (SessionEntry & { stale: boolean })[] {
  let files: string[];
  try {
    files = readdirSync(registryDir()).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const entries: (SessionEntry & { stale: boolean })[] = [];
  for (const file of files) {
    try {
      const entry = JSON.parse(readFileSync(path.join(registryDir(), file), 'utf8')) as SessionEntry;
      entries.push({ ...entry, stale: !isAlive(entry.pid) });
    } catch {
      // A half-written or foreign file is not a session.
    }
  }
  return entries.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
