import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * trace.jsonl: one JSON object a line, `ts` and `type` first. Appended synchronously so that a record is on disk
 * before the change it describes is reported, and no two records interleave.
 */
export class TraceWriter {
  readonly file: string;

  constructor(recordsDir: string) {
    mkdirSync(recordsDir, { recursive: true });
    this.file = path.join(recordsDir, 'trace.jsonl');
  }

  write(type: string, fields: Record<string, unknown>): void {
    appendFileSync(this.file, `${JSON.stringify({ ts: new Date().toISOString(), type, ...fields })}\n`);
  }
}
