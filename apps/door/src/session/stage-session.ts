import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isId } from '@murmur/protocol';
import { type DoorSettings, doorSettings } from '../config/settings.js';
import { loadManifest } from '../manifest/manifest.loader.js';
import type { FormationSeat } from '../seat/formation-seat.js';
import { newId } from '../common/ids.js';
import { SessionDeadline } from './session-deadline.js';
import { makePrivateDir, tightenIfPresent, touchPrivateFile } from '../common/private-files.js';
import type { SessionContext } from './session-context.js';

export class StagingError extends Error {
  override readonly name = 'StagingError';
}

/** MURMUR_HOME, as this process read it at start (config/settings.ts). */
export function murmurHome(): string {
  return doorSettings().home;
}

/** $MURMUR_HOME/records/<capsule folder, absolute, without its leading />/<session id> */
export function recordsDirFor(capsuleDir: string, sessionId: string, home: string): string {
  return path.join(home, 'records', capsuleDir.replace(/^\/+/, ''), sessionId);
}

export interface StageOptions {
  dir: string;
  /** The process's environment settings, read at its start (doorSettings()). */
  settings: DoorSettings;
  host: string;
  port: number;
  /** A session id to reopen (mur run --resume). */
  resume?: string;
  /** When the runtime ends the session, in ms since the epoch (mur run --deadline). */
  deadlineMs?: number;
  /** The member this session is in a formation (mur run --roster). */
  formation?: FormationSeat;
  /** A delegated sub-capsule's folder under its parent's records (docs/formations.md, "Delegation"), instead of $MURMUR_HOME/records/…. */
  recordsDir?: string;
}

/** Loads the manifest and lays out the session's records folder; the door is started from the result. */
export function stageSession(options: StageOptions): SessionContext {
  const { settings } = options;
  const loaded = loadManifest(options.dir, settings);
  let sessionId = newId('session');
  if (options.resume !== undefined) {
    if (!isId('session', options.resume)) throw new StagingError(`--resume takes a session id such as ses_0193…, not '${options.resume}'`);
    sessionId = options.resume;
    const records = recordsDirFor(loaded.dir, sessionId, settings.home);
    if (!existsSync(path.join(records, 'store.db'))) throw new StagingError(`no records of session ${sessionId} for ${loaded.dir} at ${records}`);
  }
  const recordsDir = options.recordsDir ?? recordsDirFor(loaded.dir, sessionId, settings.home);
  for (const sub of ['', 'out', 'logs', 'work', 'runtime']) makePrivateDir(path.join(recordsDir, sub));
  // SQLite creates store.db-wal and -shm with the database file's own mode, so the database is made 0600 first.
  touchPrivateFile(path.join(recordsDir, 'store.db'));
  for (const name of ['store.db-wal', 'store.db-shm', 'trace.jsonl', 'out/result.txt', 'logs/door.log']) tightenIfPresent(path.join(recordsDir, name));
  const startedAtMs = Date.now();
  if (options.deadlineMs !== undefined && options.deadlineMs <= startedAtMs) {
    throw new StagingError(`--deadline ${new Date(options.deadlineMs).toISOString()} has already passed`);
  }
  return {
    sessionId,
    manifest: loaded.manifest,
    capsuleDir: loaded.dir,
    scriptPath: loaded.scriptPath,
    recordsDir,
    workDir: path.join(recordsDir, 'work'),
    runtimeDir: path.join(recordsDir, 'runtime'),
    deadline: options.deadlineMs === undefined ? null : new SessionDeadline(options.deadlineMs, startedAtMs, loaded.manifest.lifecycle.deadline_notice_secs),
    host: options.host,
    requestedPort: options.port,
    url: '',
    startedAtMs,
    resumed: options.resume !== undefined,
    heartbeatMs: settings.heartbeatMs,
    formation: options.formation ?? null,
    settings,
  };
}

/** The launch's own task: --task, else task.md, else input.txt in the capsule folder. */
export function launchTaskText(capsuleDir: string, taskOption: string | undefined): string | null {
  if (taskOption !== undefined) return taskOption;
  for (const name of ['task.md', 'input.txt']) {
    const file = path.join(capsuleDir, name);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  }
  return null;
}
