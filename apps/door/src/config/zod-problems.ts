/**
 * zod's issues as ConfigProblems: every issue (not only the first), each at its key path, with the value the input
 * held there and what the schema allows there, worded from the schema itself (its keys, enum values, bounds), or from
 * the rule's own message where a schema states a rule in words (a regex, a refinement). A schema's custom messages are
 * therefore written as what is allowed: "lowercase letters, digits, - and _, starting with a letter".
 */
import type * as z from 'zod';
import { type ConfigProblem, configPath, oneOf, shown } from './config-problem.js';

/** The parts of a zod schema's definition this file reads (zod 4's `_zod.def`, "for library authors"). */
interface SchemaDef {
  type: string;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  options?: Schema[];
  discriminator?: string;
  entries?: Record<string, unknown>;
  values?: unknown[];
  in?: Schema;
  checks?: { _zod: { def: CheckDef } }[];
}

interface CheckDef {
  check: string;
  value?: number | bigint;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  format?: string;
}

interface Schema {
  _zod: { def: SchemaDef };
}

const defOf = (schema: unknown): SchemaDef => (schema as Schema)._zod.def;

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'nonoptional', 'readonly', 'catch']);

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema under its wrappers; a union narrowed to the option the value's discriminator names, when it names one. */
function unwrap(schema: Schema, value: unknown): Schema {
  let current = schema;
  for (let guard = 0; guard < 32; guard++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else if (def.type === 'union' && def.discriminator !== undefined && isMapping(value)) {
      const key = def.discriminator;
      const picked = def.options?.find((option) => {
        const literal = defOf(unwrap(option, undefined)).shape?.[key];
        return literal !== undefined && (defOf(literal).values ?? []).includes(value[key]);
      });
      if (!picked) return current;
      current = picked;
    } else return current;
  }
  return current;
}

/** The schema that validates the value at `path`, or null where the schema cannot be followed. */
function schemaAt(root: Schema, path: readonly PropertyKey[], input: unknown): Schema | null {
  let schema = root;
  let value = input;
  for (const segment of path) {
    const def = defOf(unwrap(schema, value));
    let next: Schema | undefined;
    if (def.type === 'object') next = def.shape?.[String(segment)];
    else if (def.type === 'record') next = def.valueType;
    else if (def.type === 'array') next = def.element;
    if (!next) return null;
    schema = next;
    value = isMapping(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[segment as never] : undefined;
  }
  return schema;
}

/** The value the input holds at `path`, or undefined when it holds none. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
    else if (isMapping(value) && Object.hasOwn(value, segment as string)) value = value[segment as string];
    else return undefined;
  }
  return value;
}

function numberBounds(checks: CheckDef[]): string {
  let low = '';
  let high = '';
  for (const check of checks) {
    if (check.check === 'greater_than') low = check.inclusive ? `from ${check.value}` : `above ${check.value}`;
    if (check.check === 'less_than') high = check.inclusive ? `to ${check.value}` : `below ${check.value}`;
  }
  if (low && high) return ` ${low} ${high}`;
  if (high) return ` up ${high}`;
  return low ? ` ${low}` : '';
}

/** `a string`, `a non-empty string`, `a list of at least 2 entries`: a length's bounds on a noun. */
function lengthBound(checks: CheckDef[], noun: string, unit: string): string {
  const min = checks.find((c) => c.check === 'min_length')?.minimum;
  const max = checks.find((c) => c.check === 'max_length')?.maximum;
  if (min === 1 && max === undefined) return noun.replace(/^a /, 'a non-empty ');
  const parts = [min !== undefined && min > 0 ? `at least ${min}` : '', max !== undefined ? `at most ${max}` : ''].filter(Boolean);
  return parts.length > 0 ? `${noun} of ${parts.join(' and ')} ${unit}` : noun;
}

/** What the schema accepts, as a phrase: `an integer from 1`, `one of "single", "queue", "none"`, `a mapping with the keys …`. */
function describeSchema(schema: Schema, value?: unknown, depth = 0): string {
  const inner = unwrap(schema, value);
  const def = defOf(inner);
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  switch (def.type) {
    case 'string':
      return lengthBound(checks, 'a string', 'characters');
    case 'number': {
      const integer = checks.some((c) => c.check === 'number_format' && /int/.test(c.format ?? ''));
      return `${integer ? 'an integer' : 'a number'}${numberBounds(checks)}`;
    }
    case 'boolean':
      return 'true or false';
    case 'enum':
      return oneOf(Object.values(def.entries ?? {}));
    case 'literal':
      return oneOf(def.values ?? []);
    case 'array': {
      const list = lengthBound(checks, 'a list', 'entries');
      return def.element && depth < 2 ? `${list}, each ${describeSchema(def.element, undefined, depth + 1)}` : list;
    }
    case 'object':
      return `a mapping with the keys ${Object.keys(def.shape ?? {}).join(', ')}`;
    case 'record':
      return 'a mapping';
    case 'union': {
      if (def.discriminator !== undefined) {
        const key = def.discriminator;
        const tags = (def.options ?? []).flatMap((o) => defOf(defOf(unwrap(o, undefined)).shape?.[key] ?? o).values ?? []);
        return `a mapping whose ${key} is ${oneOf(tags)}`;
      }
      return (def.options ?? []).map((o) => describeSchema(o, undefined, depth + 1)).join(' or ');
    }
    default:
      return 'any value';
  }
}

/** The keys the mapping at `path` takes. */
function keysAt(root: Schema, path: readonly PropertyKey[], input: unknown): string[] | null {
  const schema = schemaAt(root, path, input);
  if (!schema) return null;
  const def = defOf(unwrap(schema, valueAt(input, path)));
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : null;
}

/** A custom issue's `params.note`: a remark on the value found, printed after it in parentheses. */
function noteOf(issue: z.core.$ZodIssue): string {
  const params = (issue as { params?: { note?: unknown } }).params;
  return typeof params?.note === 'string' ? ` (${params.note})` : '';
}

function problemOf(issue: z.core.$ZodIssue, input: unknown, root: Schema): ConfigProblem {
  const path = configPath(issue.path);
  const value = valueAt(input, issue.path);
  const found = `${shown(value)}${noteOf(issue)}`;
  const described = () => {
    const schema = schemaAt(root, issue.path, input);
    return schema ? describeSchema(schema, value) : issue.message;
  };
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = keysAt(root, issue.path, input);
      return {
        path,
        found: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => shown(k)).join(', ')}`,
        allowed: keys ? `the keys ${keys.join(', ')}` : 'only the keys the documentation lists',
      };
    }
    case 'invalid_key': {
      // A refused record key (a credential or member name): the rule is in the key's own issues.
      const key = issue.path.at(-1);
      return { path, found: `the key ${shown(key)}`, allowed: issue.issues.map((i) => i.message).join('; ') };
    }
    case 'invalid_value':
      return { path, found, allowed: oneOf(issue.values) };
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue) return { path, found, allowed: oneOf((issue as { options: unknown[] }).options) };
      return { path, found, allowed: described() };
    case 'invalid_type':
    case 'too_small':
    case 'too_big':
    case 'not_multiple_of':
      return { path, found, allowed: described() };
    case 'invalid_format':
      // A format with our own words (a regex with a message) says what is allowed; zod's own says what failed.
      return { path, found, allowed: issue.format === 'regex' ? issue.message : described() };
    case 'custom':
    case 'invalid_element':
      // A refinement's message is written as what is allowed (this file's header).
      return { path, found, allowed: issue.message };
    default: {
      // zod 4's issue codes, every one: a new one fails the build here rather than passing unworded.
      const unworded: never = issue;
      return unworded;
    }
  }
}

/** Every issue of a failed parse, as problem lines, in zod's order (the input's order). */
export function zodProblems(issues: readonly z.core.$ZodIssue[], input: unknown, schema: z.core.$ZodType): ConfigProblem[] {
  return issues.map((issue) => problemOf(issue, input, schema as unknown as Schema));
}
