import { openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../common/private-files.js';
import type { TraceEntry, TraceFields, TraceLine, TraceType } from './trace-schema.js';

/** A listener to every trace record, called synchronously after the record is written, with the line as written. */
export type TraceTap = (line: TraceLine) => void;

/**
 * trace.jsonl: one JSON object a line, `ts` and `type` first, then exactly the fields trace-schema.ts gives that
 * type. Appended synchronously so that a record is in the file before the change it describes is reported, and no
 * two records interleave. The file stays open in append mode for the process's life: one write(2) a record, where
 * appendFileSync opened and closed it every time (three syscalls, four records a task — a measurable share of a
 * short task's CPU).
 */
export class TraceWriter {
  readonly file: string;
  private fd: number | null = null;
  private readonly taps: TraceTap[] = [];

  constructor(recordsDir: string) {
    makePrivateDir(recordsDir);
    this.file = path.join(recordsDir, 'trace.jsonl');
  }

  write<K extends TraceType>(type: K, fields: TraceFields[K]): void {
    const line = { ts: new Date().toISOString(), type, ...fields } as TraceLine;
    this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    for (const tap of this.taps) tap(line);
  }

  /** Records made at the same moment (a task's end and its result), in order, with one `ts` and in one write(2). */
  writeAll(records: readonly TraceEntry[]): void {
    const ts = new Date().toISOString();
    const lines = records.map(([type, fields]) => ({ ts, type, ...fields }) as TraceLine);
    let text = '';
    for (const line of lines) text += `${JSON.stringify(line)}\n`;
    this.fd ??= openSync(this.file, 'a', PRIVATE_FILE_MODE);
    writeSync(this.fd, text);
    for (const line of lines) for (const tap of this.taps) tap(line);
  }

  /** Every record, after it is in the file; telemetry/ builds its spans from them. A tap must not throw. */
  tap(listener: TraceTap): void {
    this.taps.push(listener);
  }
}
