import { decodeTraceLine } from '../records/trace-lines.js';
import { AppendedLines } from './appended-lines.js';

/** What a trace says of its session: its name and URL, when it started, and when it last ended (null once reopened). */
export interface TraceSessionFacts {
  name: string | null;
  url: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

/** Bytes every session_start and session_end line holds, as its type's value; other lines holding them are decoded and skipped. */
const MARKS = [Buffer.from('session_start'), Buffer.from('session_end')];
const NEWLINE = 10;

/**
 * A trace.jsonl's session facts, read without decoding its other lines: the sessions listing names every session on
 * the host, and indexing each trace (trace-index.ts) to name it decoded every line of every session before the listing
 * answered — a 60,000-line session cost a page of another session ~0.5 s. Only lines holding `session_start` or
 * `session_end` are decoded (found by a byte search); the facts are those the records' decoded session lines give, in
 * file order. Like the index it grows with the file: a scan reads what was appended since (a file replaced or
 * shortened is read afresh; a last line not yet ended by its newline waits for it).
 */
export class TraceSession {
  readonly facts: TraceSessionFacts = { name: null, url: null, startedAt: null, endedAt: null };
  readonly #lines: AppendedLines;
  #scanning: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {
    this.#lines = new AppendedLines(file);
  }

  /** The facts, with the lines appended since the last scan read. */
  scan(): Promise<TraceSessionFacts> {
    const next = this.#scanning.then(() =>
      this.#lines.read(
        () => Object.assign(this.facts, { name: null, url: null, startedAt: null, endedAt: null }),
        (lines) => this.#scanLines(lines),
      ),
    );
    this.#scanning = next.catch(() => undefined);
    return next.then(() => this.facts);
  }

  /** The session lines among `lines` (whole lines, newline-separated), applied in file order. */
  #scanLines(lines: Buffer): void {
    const starts = new Set<number>();
    for (const mark of MARKS) {
      for (let at = lines.indexOf(mark); at !== -1; at = lines.indexOf(mark, at + mark.length)) starts.add(lines.lastIndexOf(NEWLINE, at) + 1);
    }
    for (const start of [...starts].sort((a, b) => a - b)) {
      const end = lines.indexOf(NEWLINE, start);
      this.#apply(lines.toString('utf8', start, end === -1 ? lines.length : end));
    }
  }

  #apply(line: string): void {
    const record = decodeTraceLine(line);
    if (typeof record === 'string') return;
    if (record.type === 'session_start') {
      this.facts.name ??= record.name;
      this.facts.url = record.url;
      this.facts.startedAt ??= record.ts;
      this.facts.endedAt = null;
    } else if (record.type === 'session_end') this.facts.endedAt = record.ts;
  }
}

/** The sessions' facts mur console keeps, the most recently read last; at most SESSIONS_KEPT files. */
const kept = new Map<string, TraceSession>();
const SESSIONS_KEPT = 1024;

/** The session facts of a trace file, brought up to date with what was appended since it was last read. */
export function traceSessionFacts(file: string): Promise<TraceSessionFacts> {
  let session = kept.get(file);
  if (session) kept.delete(file);
  else session = new TraceSession(file);
  kept.set(file, session);
  if (kept.size > SESSIONS_KEPT) kept.delete(kept.keys().next().value as string);
  return session.scan();
}
