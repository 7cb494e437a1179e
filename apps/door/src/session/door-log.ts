import path from 'node:path';
import { appendPrivateFile, makePrivateDir } from './private-files.js';

/** The door's own log, logs/door.log in the records folder: one JSON line per entry. Never given a token. */
export class DoorLog {
  private readonly file: string;

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
      appendPrivateFile(this.file, `${JSON.stringify({ ts: new Date().toISOString(), level, message, ...fields })}\n`);
    } catch {
      // A log that cannot be written must not take the door down.
    }
  }
}
