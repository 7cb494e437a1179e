import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeTraceLine } from '../../src/records/trace-lines.js';

/**
 * Every line a real door wrote to its trace.jsonl decodes against the records' schema (src/records/trace-schema.ts):
 * a door that wrote a field its schema does not give that type (a value the types let through, such as `undefined`
 * dropped from the JSON) would blank the console's record of it. Lines cut short by a kill are not JSON and pass.
 */
export function assertTraceOnSchema(recordsDir: string): void {
  const file = path.join(recordsDir, 'trace.jsonl');
  if (!existsSync(file)) return;
  const off: string[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text === '') continue;
    const line = decodeTraceLine(text);
    if (line === 'off-schema' || line === 'unknown-type') off.push(`${line}: ${text.slice(0, 400)}`);
  }
  if (off.length > 0) throw new Error(`${file}: ${off.length} record(s) off the schema, first: ${off[0]}`);
}
