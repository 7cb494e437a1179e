import { openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { escapeControlCharacters } from '@murmur/protocol';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../common/private-files.js';

/**
 * How long an info line may wait to be written with the lines after it.
 * @default 20 ms
 * @unit ms
 */
const INFO_LINE_DELAY_MS = 20;

/** Characters of waiting info lines past which they are written at once. */
const INFO_BUFFER_CHARS = 64 * 1024;

/**
 * The door's own log, logs/door.log in the records folder: one JSON line per entry. Never given a token. The file
 * stays open in append mode for the process's life (created with the first entry). Info lines — every stream logs
 * its opening and closing — wait up to INFO_LINE_DELAY_MS and go out together in one write(2), instead of one write
 * each on the stream's path; an error line is written at once, with any info lines before it, and the waiting lines
 * are written when the process exits. After a kill -9, the info lines of the last INFO_LINE_DELAY_MS may be missing.
 */
export class DoorLog {
  private readonly file: string;
  private fd: number | null = null;
  private waiting = '';
  private timer: NodeJS.Timeout | null = null;
  private exitHook = false;

  constructor(recordsDir: string) {
    const dir = path.join(recordsDir, 'logs');
    makePrivateDir(dir);
    this.file = path.join(dir, 'door.log');
  }

  info(message: string, fields: Record<string, unknown> = {}): void {
    this.waiting += line('info', message, fields);
    if (this.waiting.length >= INFO_BUFFER_CHARS) this.flush();
    else if (!this.timer) {
      this.open();
      this.timer = setTimeout(() => this.flush(), INFO_LINE_DELAY_MS);
      this.timer.unref();
    }
  }

  error(message: string, fields: Record<string, unknown> = {}): void {
    this.waiting += line('error', message, fields);
    this.flush();
  }

  /** Writes the waiting lines now. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.waiting === '') return;
    const text = this.waiting;
    this.waiting = '';
    try {
      if (this.open() !== null) writeSync(this.fd!, text);
    } catch {
      // A log that cannot be written must not take the door down.
    }
  }

  private open(): number | null {
    try {
      this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
    } catch {
      return null;
    }
    if (!this.exitHook) {
      this.exitHook = true;
      process.once('exit', () => this.flush());
    }
    return this.fd;
  }
}

/** One JSON line; JSON escapes C0 controls, and the C1 and bidirectional ones are escaped too (docs/sandbox.md, "Output is data"). */
function line(level: string, message: string, fields: Record<string, unknown>): string {
  return `${escapeControlCharacters(JSON.stringify({ ts: new Date().toISOString(), level, message, ...fields }))}\n`;
}
