import { readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { RegisteredSession } from '@murmur/protocol';
import { makePrivateDir, writePrivateFile } from '../common/private-files.js';
import type { SessionContext } from './session-context.js';
import { murmurHome } from './stage-session.js';

/** What a running session registers so `mur ps` and the console can find it. */
export interface SessionEntry extends RegisteredSession {
  /** A formation member's place (mur run --roster); absent for a capsule run on its own. */
  formation?: { name: string; member: string; entry: boolean; supervisorPid: number };
  /** A delegated sub-capsule's parent (delegate-task): the delegating session and the delegation; absent otherwise. */
  delegation?: { parentSessionId: string; delegationId: string };
}

/** What `mur run --roster` registers: the formation as a whole, so `mur stop <name>` can stop it. */
export interface FormationEntry {
  name: string;
  pid: number;
  rosterFile: string;
  entry: string;
  members: { member: string; sessionId: string; url: string; pid: number }[];
  startedAt: string;
  /**
   * The supervisor's start time (/proc/<pid>/stat, clock ticks since boot), written at registration: a pid is reused
   * once its process is gone (pid_max is 32,768 on some machines), and `mur stop` signals this pid, so an entry whose pid
   * now names a process started at another time is stale. Absent in an entry an older mur wrote.
   */
  pidStartTime?: string;
}

function formationsDir(home = murmurHome()): string {
  return path.join(home, 'formations');
}

export function registerFormation(entry: FormationEntry): void {
  makePrivateDir(formationsDir());
  const registered: FormationEntry = { ...entry, pidStartTime: startTimeOf(entry.pid) ?? undefined };
  writePrivateFile(path.join(formationsDir(), `${entry.name}-${entry.pid}.json`), `${JSON.stringify(registered, null, 2)}\n`);
}

/** When process `pid` started (field 22 of /proc/<pid>/stat, after the command name, which may hold spaces), or null. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the formation's supervisor still runs: its pid alive and, where the entry says when it started, started then. */
function supervisorRuns(entry: FormationEntry): boolean {
  if (!isAlive(entry.pid)) return false;
  return entry.pidStartTime === undefined || startTimeOf(entry.pid) === entry.pidStartTime;
}

export function unregisterFormation(name: string, pid: number): void {
  rmSync(path.join(formationsDir(), `${name}-${pid}.json`), { force: true });
}

/** Every registered formation under `home` (MURMUR_HOME), each marked stale when its supervisor is gone (or its pid reused). */
export function listFormations(home = murmurHome()): (FormationEntry & { stale: boolean })[] {
  let files: string[];
  try {
    files = readdirSync(formationsDir(home)).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    try {
      const entry = JSON.parse(readFileSync(path.join(formationsDir(home), file), 'utf8')) as FormationEntry;
      return [{ ...entry, stale: !supervisorRuns(entry) }];
    } catch {
      return [];
    }
  });
}

function registryDir(home = murmurHome()): string {
  return path.join(home, 'sessions');
}

/** The entry a running session registers: what its context and its door's address say, plus a formation place. */
export function entryOf(session: SessionContext, url: string, formation?: SessionEntry['formation']): SessionEntry {
  return {
    sessionId: session.sessionId,
    name: session.manifest.name,
    version: session.manifest.version,
    url,
    pid: process.pid,
    capsuleDir: session.capsuleDir,
    recordsDir: session.recordsDir,
    startedAt: new Date(session.startedAtMs).toISOString(),
    ...(formation ? { formation } : {}),
  };
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

/** Every session registered under `home` (MURMUR_HOME), each marked stale when its process is gone (the entry is reported, not trusted; pruneStale removes it). */
export function listSessions(home = murmurHome()): (SessionEntry & { stale: boolean })[] {
  let files: string[];
  try {
    files = readdirSync(registryDir(home)).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const entries: (SessionEntry & { stale: boolean })[] = [];
  for (const file of files) {
    try {
      const entry = JSON.parse(readFileSync(path.join(registryDir(home), file), 'utf8')) as SessionEntry;
      entries.push({ ...entry, stale: !isAlive(entry.pid) });
    } catch {
      // A half-written or foreign file is not a session.
    }
  }
  return entries.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** What pruneStale removed: the stale entries it found, as listSessions and listFormations read them. */
export interface Pruned {
  sessions: (SessionEntry & { stale: boolean })[];
  formations: (FormationEntry & { stale: boolean })[];
}

/**
 * Removes the registry entries under `home` whose process is gone (docs/cli.md, "Stale registry entries"): a
 * session's entry when its pid is not alive, a formation's when its supervisor's is not. Staleness is listSessions'
 * and listFormations' (isAlive), and each file is read again just before it is removed, so an entry whose process
 * runs is never removed, nor a half-written or foreign file. Each removal is one unlink; one that another `mur` won
 * (ENOENT) is no failure, nor is any other (a registry that cannot be written still lists). `given`: entries a caller
 * already read (mur ps lists them first); without it the registry is read here.
 */
export function pruneStale(
  home = murmurHome(),
  given?: { sessions: readonly (SessionEntry & { stale: boolean })[]; formations: readonly (FormationEntry & { stale: boolean })[] },
): Pruned {
  const removed: Pruned = { sessions: [], formations: [] };
  for (const s of given?.sessions ?? listSessions(home)) {
    if (s.stale && removeIfGone(path.join(registryDir(home), `${s.sessionId}.json`), (e: SessionEntry) => e.sessionId === s.sessionId))
      removed.sessions.push(s);
  }
  for (const f of given?.formations ?? listFormations(home)) {
    if (f.stale && removeIfGone(path.join(formationsDir(home), `${f.name}-${f.pid}.json`), (e: FormationEntry) => e.name === f.name && e.pid === f.pid))
      removed.formations.push(f);
  }
  return removed;
}

/** Unlinks an entry file that still reads as `same` entry with its process gone; false otherwise, or when another mur removed it first. */
function removeIfGone<E extends { pid: number }>(file: string, same: (entry: E) => boolean): boolean {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as E;
    if (!same(entry) || typeof entry.pid !== 'number' || isAlive(entry.pid)) return false;
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}
