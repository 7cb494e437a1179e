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

/** What a door's address or a token looks like in a text (seed 000's tokens are `mur_…`). */
const ADDRESS_OR_TOKEN = [/http:\/\//, /\bmur_/];
/**
 * share-file's one address by design: the peer-file handle's `url` (docs/planes.md, "share-file"), which the model hands
 * a peer for fetch-peer-file; the trace keeps it with its secret cut (`phk_…`).
 */
const HANDLE_URL = /"url":"https?:\/\/[^"]*\/resources\/peer\/phk_[^"]*"/g;

/**
 * Seed 004: "The model never sees the door's address or the token." Every tool result a door handed its model (its
 * trace's `tool_call` outputs) is read for `http://` and `mur_`. A result is exempt only where the model's own input to
 * that call carries the same text (a command it wrote that prints a URL it chose): that text is the model's, not a
 * door's; and share-file's handle URL, which is the tool's answer. Lines cut short by a kill are skipped.
 */
export function assertNoAddressToModel(recordsDir: string): void {
  const file = path.join(recordsDir, 'trace.jsonl');
  if (!existsSync(file)) return;
  const leaks: string[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.includes('"type":"tool_call"')) continue;
    let record: { type?: string; tool?: string; input?: unknown; output?: unknown };
    try {
      record = JSON.parse(text) as typeof record;
    } catch {
      continue;
    }
    if (record.type !== 'tool_call') continue;
    const raw = typeof record.output === 'string' ? record.output : JSON.stringify(record.output ?? '');
    const output = record.tool === 'share-file' ? raw.replace(HANDLE_URL, '"url":"<the handle>"') : raw;
    const input = JSON.stringify(record.input ?? '');
    for (const pattern of ADDRESS_OR_TOKEN) {
      if (pattern.test(output) && !pattern.test(input)) leaks.push(`${record.tool}: ${output.slice(0, 300)}`);
    }
  }
  if (leaks.length > 0) throw new Error(`${file}: ${leaks.length} tool result(s) handed the model a door's address or a token, first: ${leaks[0]}`);
}
