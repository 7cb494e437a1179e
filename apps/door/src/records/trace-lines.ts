import { isTraceType, TRACE_SCHEMAS, type TraceLine } from './trace-schema.js';

/** Why a line of trace.jsonl did not decode: cut by a crash mid-write, a type this door does not know, or fields off its schema. */
export type UndecodedLine = 'not-json' | 'unknown-type' | 'off-schema';

/**
 * One line of trace.jsonl as a TraceLine, or why not (docs/records.md, "Reading"). A line is decoded only whole:
 * a `ts` string, a known `type`, and fields that pass that type's schema; fields the schema does not name are dropped.
 */
export function decodeTraceLine(text: string): TraceLine | UndecodedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not-json';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'off-schema';
  const { ts, type } = value as { ts?: unknown; type?: unknown };
  if (typeof ts !== 'string') return 'off-schema';
  if (!isTraceType(type)) return 'unknown-type';
  const fields = TRACE_SCHEMAS[type].safeParse(value);
  if (!fields.success) return 'off-schema';
  return { ts, type, ...fields.data } as TraceLine;
}

/** What a trace's text decodes to: its lines in order, and how many lines were left out, by reason. */
export interface DecodedTrace {
  lines: TraceLine[];
  undecoded: Record<UndecodedLine, number>;
}

/** Every line of a trace's text, in order; empty lines are not lines. */
export function decodeTrace(text: string): DecodedTrace {
  const decoded: DecodedTrace = { lines: [], undecoded: { 'not-json': 0, 'unknown-type': 0, 'off-schema': 0 } };
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const line = decodeTraceLine(text.slice(start, end));
      if (typeof line === 'string') decoded.undecoded[line] += 1;
      else decoded.lines.push(line);
    }
    start = end + 1;
  }
  return decoded;
}
