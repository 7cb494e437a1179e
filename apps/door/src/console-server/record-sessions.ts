import { type Dirent, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ConsoleRecordSession } from '@murmur/protocol';
import { listSessions } from '../session/session-registry.js';
import { traceSessionFacts } from '../record-reads/trace-session.js';

const SESSION_DIR = /^ses_[0-9a-f]{32}$/;
/** Records folders nest the capsule's absolute path; deeper than this is not looked into. */
const MAX_DEPTH = 40;

/** Every session folder under <home>/records that holds a trace.jsonl, found by walking (no symlinks). */
function recordFolders(home: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (SESSION_DIR.test(entry.name) && existsSync(path.join(full, 'trace.jsonl'))) found.push(full);
      else walk(full, depth + 1);
    }
  };
  walk(path.join(home, 'records'), 0);
  return found;
}

/**
 * The sessions whose records are on this host: registered ones (live, or stale when their process is gone) and the
 * ended ones only their records folders remember, under `home` (MURMUR_HOME). Newest first.
 */
export async function recordSessions(home: string): Promise<ConsoleRecordSession[]> {
  const registered = new Map(listSessions(home).map((s) => [s.sessionId, s]));
  const byId = new Map<string, ConsoleRecordSession>();
  const folders = new Set([...recordFolders(home), ...[...registered.values()].map((s) => s.recordsDir)]);
  for (const recordsDir of folders) {
    const sessionId = path.basename(recordsDir);
    if (!SESSION_DIR.test(sessionId) || !existsSync(path.join(recordsDir, 'trace.jsonl'))) continue;
    // Its session lines alone, not an index of the whole trace: the listing names sessions, it reads no task.
    const trace = await traceSessionFacts(path.join(recordsDir, 'trace.jsonl'));
    const entry = registered.get(sessionId);
    const state = entry ? (entry.stale ? 'stale' : 'live') : 'ended';
    const previous = byId.get(sessionId);
    // A resumed session writes to the same folder; one id, one folder.
    if (previous && previous.state !== 'ended') continue;
    byId.set(sessionId, {
      sessionId,
      name: entry?.name ?? trace.name,
      url: entry?.url ?? trace.url,
      recordsDir,
      state,
      startedAt: entry?.startedAt ?? trace.startedAt,
      endedAt: state === 'live' ? null : trace.endedAt,
    });
  }
  return [...byId.values()].sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
}
