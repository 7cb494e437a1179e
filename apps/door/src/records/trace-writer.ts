import { openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../common/private-files.js';

/** One record: its type and its fields. */
export type TraceRecord = readonly [type: string, fields: Record<string, unknown>];

/** A listener to every trace record, called synchronously after the record is written. */
export type TraceTap = (type: string, fields: Readonly<Record<string, unknown>>) => void;

/**
 * trace.jsonl: one JSON object a line, `ts` and `type` first. Appended synchronously so that a record is in the file
 * before the change it describes is reported, and no two records interleave. The file stays open in append mode for
 * the process's life: one write(2) a record, where appendFileSync opened and closed it every time (three syscalls,
 * four records a task — a measurable share of a short task's CPU).
 */
export class TraceWriter {
  readonly file: string;
  private fd: number | null = null;
  private readonly taps: TraceTap[] = [];

  constructor(recordsDir: string) {
    makePrivateDir(recordsDir);
    this.file = path.join(recordsDir, 'trace.jsonl');
  }

  write(type: string, fields: Record<string, unknown>): void {
    this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
    writeSync(this.fd, `${JSON.stringify({ ts: new Date().toISOString(), type, ...fields })}\n`);
    for (const tap of this.taps) tap(type, fields);
  }

  /** Records made at the same moment (a task's end and its result), in order, with one `ts` and in one write(2). */
  writeAll(records: readonly TraceRecord[]): void {
    const ts = new Date().toISOString();
    let text = '';
    for (const [type, fields] of records) text += `${JSON.stringify({ ts, type, ...fields })}\n`;
    this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
    writeSync(this.fd, text);
    for (const [type, fields] of records) for (const tap of this.taps) tap(type, fields);
  }

  /** Every record, after it is in the file; telemetry/ builds its spans from them. A tap must not throw. */
  tap(listener: TraceTap): void {
    this.taps.push(listener);
  }
}
