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
