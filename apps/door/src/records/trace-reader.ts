import { readFileSync, statSync } from 'node:fs';
import { decodeTrace, type UndecodedLine } from './trace-lines.js';
import type { TraceLine, TraceLineOf } from './trace-schema.js';

/** A session's trace.jsonl, decoded (records/trace-lines.ts) and grouped the way the console's record reads it. */
export interface ParsedTrace {
  session: { name: string | null; url: string | null; startedAt: string | null; endedAt: string | null };
  /** Each task's records in the order written. */
  tasks: Map<string, TraceLine[]>;
  /** The peer handles' records (`peer_handle_mint`, `_redeem`, `_refused`) in the order written. */
  handles: TraceLineOf<'peer_handle_mint' | 'peer_handle_redeem' | 'peer_handle_refused'>[];
  /** Lines left out, by reason: a line cut by a crash mid-write, a type or fields this door does not know. */
  undecoded: Record<UndecodedLine, number>;
}

/** Parsed traces, re-read only when the file's size or mtime changed; bounded to the most recently read. */
const cache = new Map<string, { size: number; mtimeMs: number; trace: ParsedTrace }>();
const CACHE_FILES = 64;

function parse(text: string): ParsedTrace {
  const { lines, undecoded } = decodeTrace(text);
  const trace: ParsedTrace = { session: { name: null, url: null, startedAt: null, endedAt: null }, tasks: new Map(), handles: [], undecoded };
  for (const line of lines) {
    if (line.type === 'session_start') {
      trace.session.name ??= line.name;
      trace.session.url = line.url;
      trace.session.startedAt ??= line.ts;
      trace.session.endedAt = null;
    } else if (line.type === 'session_end') trace.session.endedAt = line.ts;
    if (line.type === 'peer_handle_mint' || line.type === 'peer_handle_redeem' || line.type === 'peer_handle_refused') trace.handles.push(line);
    if (!('task_id' in line)) continue;
    const list = trace.tasks.get(line.task_id);
    if (list) list.push(line);
    else trace.tasks.set(line.task_id, [line]);
  }
  return trace;
}

/**
 * A session's trace.jsonl, parsed (an unreadable file reads as an empty trace). `cache: false` (a door reading its own
 * trace) parses it afresh and keeps nothing, so no parsed copy outlives the request.
 */
export function readTrace(file: string, options: { cache?: boolean } = {}): ParsedTrace {
  if (options.cache === false) {
    try {
      return parse(readFileSync(file, 'utf8'));
    } catch {
      return parse('');
    }
  }
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
