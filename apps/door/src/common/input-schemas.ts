/**
 * The one place a tool's input schema is compiled (docs/agent-loop.md, "The tool inventory"; docs/artifacts.md, "The
 * artifact"): the inventory's call-time check and the reading of an artifact's murmur.yaml build their Ajv here, with
 * the same options, so a schema that compiles when a manifest is read compiles when the tool is called.
 */
import type { Ajv, ValidateFunction } from 'ajv';

/**
 * `strict`: a keyword Ajv does not know, an unknown `format`, a `required` property `properties` does not define, a
 * keyword without the `type` it applies to are errors, not ignored. `addUsedSchema: false`: a schema's `$id` is not
 * registered on the instance, so one tool's schema never changes (or clashes with) another's compile.
 */
const OPTIONS = { allErrors: false, strict: true, addUsedSchema: false } as const;

/** The most characters of Ajv's refusal a message quotes: it repeats a publisher's keywords and references. */
const FAULT_MAX_CHARS = 300;

/** A schema Ajv does not compile; the message is Ajv's own, cut at FAULT_MAX_CHARS. */
export class InputSchemaFault extends Error {
  override readonly name = 'InputSchemaFault';
}

/**
 * Ajv's class, imported on first use (a door that checks no input never loads it: docs/benchmarks.md). Node's ES module
 * loader names ajv's CommonJS exports (`Ajv`); the bundle's chunk of it exports only its `module.exports`, which is
 * the class with `Ajv` set on it: read where either has it.
 */
async function ajvClass(): Promise<typeof Ajv> {
  const loaded = await import('ajv');
  const named: typeof Ajv | undefined = loaded.Ajv;
  return named ?? loaded.default.Ajv;
}

/** A new Ajv for tool inputs, with the options every input is checked under. */
export async function inputSchemaAjv(): Promise<Ajv> {
  return new (await ajvClass())(OPTIONS);
}

/** `schema`'s validator, compiled on `ajv`; throws InputSchemaFault (and keeps nothing of it) when it does not compile. */
export function compileInputSchema(ajv: Ajv, schema: object): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    // Ajv caches a schema before compiling it: a failed one is dropped, so nothing later meets its half.
    ajv.removeSchema(schema);
    const said = error instanceof Error ? error.message : String(error);
    throw new InputSchemaFault(said.length > FAULT_MAX_CHARS ? `${said.slice(0, FAULT_MAX_CHARS - 1)}…` : said, { cause: error });
  }
}

/** The Ajv manifests are checked on: one per process, keeping no schema it was given. */
let checker: Promise<Ajv> | null = null;

/** Why `schema` does not compile as a call's check compiles it (Ajv's words, bounded), or null when it compiles. */
export async function inputSchemaFault(schema: object): Promise<string | null> {
  checker ??= inputSchemaAjv();
  const ajv = await checker;
  try {
    compileInputSchema(ajv, schema);
    ajv.removeSchema(schema);
    return null;
  } catch (error) {
    if (error instanceof InputSchemaFault) return error.message;
    throw error;
  }
}
