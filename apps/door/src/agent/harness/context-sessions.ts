import { readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, writePrivateFile } from '../../common/private-files.js';
import { HARNESS_NAMES, type HarnessName } from '../../manifest/manifest.schema.js';

/** The harness session a context's tasks run in (docs/harness.md, "Sessions"). */
export interface ContextSession {
  harness: HarnessName;
  sessionId: string;
}

/** contexts.json past this size is not read (what the door itself writes stays far below it). @unit bytes */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The capsule folder's map from a context id to its harness session: `harness/contexts.json` beside the capsule's
 * sessions, so a context resumes across tasks, `mur run --resume` and new launches. Read on every use (a second
 * session of the capsule folder may have written it) and replaced whole by a rename, so a reader never sees half.
 */
export class ContextSessions {
  private readonly file: string;

  constructor(readonly folder: string) {
    this.file = path.join(folder, 'contexts.json');
  }

  get(contextId: string): ContextSession | null {
    return this.read()[contextId] ?? null;
  }

  set(contextId: string, session: ContextSession): void {
    const all = this.read();
    all[contextId] = session;
    this.write(all);
  }

  /** Drops the context's entry; the entry it dropped, or null when it named none. */
  forget(contextId: string): ContextSession | null {
    const all = this.read();
    const dropped = all[contextId] ?? null;
    if (dropped === null) return null;
    delete all[contextId];
    this.write(all);
    return dropped;
  }

  private read(): Record<string, ContextSession> {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return {};
    }
    if (text.length > MAX_FILE_BYTES) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return {};
    }
    const out: Record<string, ContextSession> = Object.create(null);
    if (parsed === null || typeof parsed !== 'object') return out;
    // Only entries of the shape the door writes are kept: the file is the door's own, but a person may have edited it.
    for (const [contextId, entry] of Object.entries(parsed)) {
      const e = entry as { harness?: unknown; sessionId?: unknown };
      if (typeof e?.sessionId === 'string' && HARNESS_NAMES.includes(e.harness as HarnessName))
        out[contextId] = { harness: e.harness as HarnessName, sessionId: e.sessionId };
    }
    return out;
  }

  private write(all: Record<string, ContextSession>): void {
    makePrivateDir(this.folder);
    const temporary = `${this.file}.${process.pid}.tmp`;
    writePrivateFile(temporary, `${JSON.stringify(all, null, 2)}\n`);
    renameSync(temporary, this.file);
  }
}

/** The capsule folder's harness state, beside its sessions' records: `<records of the capsule folder>/harness`. */
export const harnessStateFolder = (sessionRecordsDir: string): string => path.join(path.dirname(sessionRecordsDir), 'harness');
