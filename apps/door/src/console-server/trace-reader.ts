import { readFileSync, statSync } from 'node:fs';

/** One line of trace.jsonl (session/trace-writer.ts): `ts` and `type` first, then the record's fields. */
export interface TraceRecord {
  ts: string;
  type: string;
  task_id?: string;
  [field: string]: unknown;
}

export interface ParsedTrace {
  session: { name: string | null; url: string | null; startedAt: string | null; endedAt: string | null };
  /** Each task's records in the order written. */
  tasks: Map<string, TraceRecord[]>;
  /** The peer handles' records (`peer_handle_mint`, `_redeem`, `_refused`) in the order written. */
  handles: TraceRecord[];
}

/** Parsed traces, re-read only when the file's size or mtime changed; bounded to the most recently read. */
const cache = new Map<string, { size: number; mtimeMs: number; trace: ParsedTrace }>();
const CACHE_FILES = 64;

function parse(text: string): ParsedTrace {
  const trace: ParsedTrace = { session: { name: null, url: null, startedAt: null, endedAt: null }, tasks: new Map(), handles: [] };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let record: TraceRecord;
    try {
      record = JSON.parse(line) as TraceRecord;
    } catch {
      continue; // a line cut by a crash mid-write
    }
    if (typeof record !== 'object' || record === null || typeof record.ts !== 'string') continue;
    if (record.type === 'session_start') {
      trace.session.name ??= typeof record.name === 'string' ? record.name : null;
      trace.session.url = typeof record.url === 'string' ? record.url : trace.session.url;
      trace.session.startedAt ??= record.ts;
      trace.session.endedAt = null;
    } else if (record.type === 'session_end') trace.session.endedAt = record.ts;
    if (record.type.startsWith('peer_handle_')) trace.handles.push(record);
    if (typeof record.task_id !== 'string') continue;
    const list = trace.tasks.get(record.task_id);
    if (list) list.push(record);
    else trace.tasks.set(record.task_id, [record]);
  }
  return trace;
}

/** A session's trace.jsonl, parsed (an unreadable file reads as an empty trace). */
export function readTrace(file: string): ParsedTrace {
  let size: number;
  let mtimeMs: number;
  try {
    ({ size, mtimeMs } = statSync(file));
  } catch {
    return parse('');
  }
  const hit = cache.get(file);
  if (hit && hit.size === size && hit.mtimeMs === mtimeMs) return hit.trace;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return parse('');
  }
  const trace = parse(text);
  cache.delete(file);
  cache.set(file, { size, mtimeMs, trace });
  if (cache.size > CACHE_FILES) cache.delete(cache.keys().next().value as string);
  return trace;
}
