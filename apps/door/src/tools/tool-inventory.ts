import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../common/private-files.js';
import type { JsonObject } from '@murmur/protocol';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { compileInputSchema, InputSchemaFault, inputSchemaAjv } from '../common/input-schemas.js';
import { stringify } from 'yaml';
import { ToolInputError } from './tool-call.js';

/** One tool the model is told of: its name, what it does, and the JSON Schema of its input. */
export interface ToolEntry {
  name: string;
  /** An artifact's folder holds its own murmur.yaml (docs/artifacts.md); staging writes the others'. */
  kind: 'shell' | 'runtime' | 'artifact';
  description: string;
  inputSchema: JsonObject;
  /** What a call's input is checked against, when the tool checks part of inputSchema itself; inputSchema when absent. */
  checkedSchema?: JsonObject;
}

/** The input every shell binary takes (docs/decisions.md, "Shell tool input"). */
const SHELL_INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    command: { type: 'string', minLength: 1, description: 'A command line, run as <binary> -c <command>' },
    args: { type: 'array', items: { type: 'string' }, description: 'Arguments, run as <binary> <args…>' },
  },
  additionalProperties: false,
};

export function shellEntry(binary: string): ToolEntry {
  return {
    name: binary,
    kind: 'shell',
    description: `Runs ${binary} as a subprocess in the session's workdir: {"command": "<text>"} runs ${binary} -c <text>, {"args": [...]} runs it with those arguments. Returns its exit code, stdout and stderr.`,
    inputSchema: SHELL_INPUT_SCHEMA,
  };
}

/**
 * The tool inventory: one entry per shell binary of capabilities.shell.allow and per granted runtime tool, each
 * staged as tools/<name>/murmur.yaml in the session's runtime folder (seed 004: version 0.0.0, runtime: tool,
 * implementation: native). Staging, the dispatcher, the model's tool list and session_start's tools_declared all
 * read this one list; a tool that is not in it does not exist. Inputs are checked against the schemas here.
 */
export class ToolInventory {
  /** A tool's validator is compiled on its first call: Ajv's compiling (its meta-schema first) was a tenth of a start. */
  private readonly byName = new Map<string, { entry: ToolEntry; validate: ValidateFunction | null }>();
  private ajv: Ajv | null = null;

  constructor(entries: ToolEntry[]) {
    // The first entry of a name wins: declared artifacts come first, so a shell binary of the same name yields its
    // manifest to the artifact's (seed 004, "Reserved names"); runtime tools' names are reserved, so none collides.
    for (const entry of entries) if (!this.byName.has(entry.name)) this.byName.set(entry.name, { entry, validate: null });
  }

  /** A pulled artifact joins the list at its end (docs/artifacts.md, "The inventory and dispatch"). */
  add(entry: ToolEntry): void {
    this.byName.delete(entry.name);
    this.byName.set(entry.name, { entry, validate: null });
  }

  remove(name: string): void {
    this.byName.delete(name);
  }

  entries(): ToolEntry[] {
    return [...this.byName.values()].map((e) => e.entry);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Writes tools/<name>/murmur.yaml under the runtime folder for every entry. */
  stage(runtimeDir: string): void {
    for (const { entry } of this.byName.values()) {
      if (entry.kind === 'artifact') continue;
      const dir = path.join(runtimeDir, 'tools', entry.name);
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const manifest = {
        name: entry.name,
        version: '0.0.0',
        runtime: 'tool',
        implementation: 'native',
        description: entry.description,
        input_schema: entry.inputSchema,
      };
      writeFileSync(path.join(dir, 'murmur.yaml'), stringify(manifest), { mode: PRIVATE_FILE_MODE });
    }
  }

  /**
   * Why an input does not fit the tool's schema, in words naming the field and its value; null when it fits. Ajv
   * itself is loaded with the first call that checks one (a door that runs no tool never loads it: docs/benchmarks.md).
   * A schema that does not compile throws ToolInputError: the call is a tool error, it does not run, and the door goes
   * on (an artifact's schema was compiled when its murmur.yaml was read, so this is a fault of the door's own).
   */
  async inputRefusal(name: string, input: Record<string, unknown>): Promise<string | null> {
    const tool = this.byName.get(name);
    if (!tool) return null;
    this.ajv ??= await inputSchemaAjv();
    if (tool.validate === null) {
      try {
        tool.validate = compileInputSchema(this.ajv, tool.entry.checkedSchema ?? tool.entry.inputSchema);
      } catch (error) {
        if (!(error instanceof InputSchemaFault)) throw error;
        throw new ToolInputError(`${name}: its input schema does not compile, so no call of it can be checked and none runs (${error.message})`);
      }
    }
    if (tool.validate(input)) return null;
    return describeSchemaError(tool.validate.errors?.[0], input);
  }
}

function valueAt(input: Record<string, unknown>, pointer: string): unknown {
  let value: unknown = input;
  for (const key of pointer.split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  return value;
}

/** One schema error as the model reads it: the field, its value, and the rule it breaks. */
function describeSchemaError(error: ErrorObject | undefined, input: Record<string, unknown>): string {
  if (!error) return 'the input does not fit the tool’s schema';
  const field = error.instancePath === '' ? 'the input' : error.instancePath.slice(1).replaceAll('/', '.');
  const value = JSON.stringify(valueAt(input, error.instancePath)) ?? 'undefined';
  switch (error.keyword) {
    case 'required':
      return `${(error.params as { missingProperty: string }).missingProperty} is required`;
    case 'additionalProperties':
      return `${field} has an unknown field ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)}`;
    case 'enum':
      return `${field} ${value} is not one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'type':
      return `${field} ${value} is not ${article((error.params as { type: string }).type)}`;
    default:
      return `${field} ${value} ${error.message ?? 'does not fit the schema'}`;
  }
}

function article(type: string): string {
  return { integer: 'a whole number', number: 'a number', string: 'a string', object: 'an object', array: 'an array', boolean: 'a boolean' }[type] ?? type;
}
