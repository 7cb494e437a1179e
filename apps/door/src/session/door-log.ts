import { openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

/**
 * The door's own log, logs/door.log in the records folder: one JSON line per entry. Never given a token. The file
 * stays open in append mode for the process's life, one write(2) an entry (as trace.jsonl): every stream logs its
 * opening and closing, and opening and closing the file for each line was ~1% of a stream's CPU.
 */
export class DoorLog {
  private readonly file: string;
  private fd: number | null = null;

  constructor(recordsDir: string) {
    const dir = path.join(recordsDir, 'logs');
    makePrivateDir(dir);
    this.file = path.join(dir, 'door.log');
  }

  info(message: string, fields: Record<string, unknown> = {}): void {
    this.write('info', message, fields);
  }

  error(message: string, fields: Record<string, unknown> = {}): void {
    this.write('error', message, fields);
  }

  private write(level: string, message: string, fields: Record<string, unknown>): void {
    try {
      this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
      writeSync(this.fd, `${JSON.stringify({ ts: new Date().toISOString(), level, message, ...fields })}\n`);
    } catch {
      // A log that cannot be written must not take the door down.
    }
  }
}
