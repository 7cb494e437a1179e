/**
 * The one YAML-config reader: murmur.yaml, roster.yaml and a script file are read by it alike: YAML with unique keys,
 * a mapping at the top, then their zod schema, every bad key reported at once in the one problem format
 * (config-problem.ts). Each loader passes its own error class and adds its own cross-key checks in the same format.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type * as z from 'zod';
import { type ConfigErrorClass, shown } from './config-problem.js';
import { zodProblems } from './zod-problems.js';

/** `text` (the contents of `source`) as its schema's output; anything else throws `Fault` naming every bad key. */
export function parseYamlConfig<S extends z.ZodType>(text: string, source: string, schema: S, Fault: ConfigErrorClass): z.output<S> {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) throw new Fault(source, `not valid YAML: ${doc.errors[0].message}`);
  let value: unknown;
  try {
    // yaml refuses an alias that expands past its bound (a "billion laughs" document) with a ReferenceError.
    value = doc.toJS();
  } catch (error) {
    throw new Fault(source, `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) {
    throw new Fault(source, [
      { path: '(top level)', found: value === null || value === undefined ? 'an empty document' : shown(value), allowed: 'a mapping of keys' },
    ]);
  }
  // Without zod's compiled fast path: a config file is parsed once, and compiling an object schema's fast path (a
  // `new Function` per object schema on its first parse) costs more than it saves (docs/benchmarks.md, issue 39).
  const result = schema.safeParse(value, { jitless: true });
  if (!result.success) throw new Fault(source, zodProblems(result.error.issues, value, schema));
  return result.data;
}

/** The file at `file`, read and parsed as parseYamlConfig does. */
export function readYamlConfig<S extends z.ZodType>(file: string, schema: S, Fault: ConfigErrorClass): z.output<S> {
  return parseYamlConfig(readFileSync(file, 'utf8'), file, schema, Fault);
}
