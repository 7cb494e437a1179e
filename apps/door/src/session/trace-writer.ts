import path from 'node:path';
import { appendPrivateFile, makePrivateDir } from './private-files.js';

/**
 * trace.jsonl: one JSON object a line, `ts` and `type` first. Appended synchronously so that a record is on disk
 * before the change it describes is reported, and no two records interleave.
 */
export class TraceWriter {
  readonly file: string;

  constructor(recordsDir: string) {
    makePrivateDir(recordsDir);
    this.file = path.join(recordsDir, 'trace.jsonl');
  }

  write(type: string, fields: Record<string, unknown>): void {
    appendPrivateFile(this.file, `${JSON.stringify({ ts: new Date().toISOString(), type, ...fields })}\n`);
  }
}
