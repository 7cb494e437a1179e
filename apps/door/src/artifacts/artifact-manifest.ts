/**
 * An artifact's own murmur.yaml (docs/artifacts.md, "The artifact"): its full name, version, runtime, implementation,
 * description, input schema and entry. Read by the one YAML-config reader, so a refusal names every bad key alike; its
 * input schema is then compiled as a call's check compiles it.
 */
import type { JsonObject } from '@murmur/protocol';
import semver from 'semver';
import * as z from 'zod';
import { inputSchemaFault } from '../common/input-schemas.js';
import { ConfigError } from '../config/config-problem.js';
import { parseYamlConfig } from '../config/yaml-config.js';
import { FULL_NAME, FULL_NAME_RULE, toolNameOf } from '../manifest/artifact-entries.js';

/** The most bytes an artifact's murmur.yaml may hold. */
export const ARTIFACT_MANIFEST_MAX_BYTES = 64 * 1024;

/** An artifact's murmur.yaml that cannot be read or does not fit. */
export class ArtifactManifestError extends ConfigError {
  override readonly name = 'ArtifactManifestError';
}

const EMPTY_INPUT: JsonObject = { type: 'object', properties: {} };

const entryPath = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (p) => !p.startsWith('/') && p.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
    'a path inside the artifact folder, without . or .. parts',
  );

/** Schema keywords whose values map names to schemas: their keys are names, not keywords. */
const NAMED_SCHEMAS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);
/** Schema keywords whose values are data, never schemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'description', 'title']);
/** The keywords that make the door run a regular expression on a call's input. */
const REGEX_KEYWORDS = ['pattern', 'patternProperties'];

/**
 * The path of a regular expression in an input schema, or null. The door checks a call's input against the schema in
 * its own thread, and JavaScript's regular expressions backtrack: a publisher's `^(a+)+$` would let a crafted input
 * hold the door for ever, so an artifact's schema holds none.
 */
function regexIn(schema: unknown, at: (string | number)[] = [], named = false): (string | number)[] | null {
  if (typeof schema !== 'object' || schema === null) return null;
  for (const [key, value] of Object.entries(schema)) {
    if (!named && REGEX_KEYWORDS.includes(key)) return [...at, key];
    if (!named && DATA_KEYWORDS.has(key)) continue;
    const found = regexIn(value, [...at, Array.isArray(schema) ? Number(key) : key], !named && NAMED_SCHEMAS.has(key));
    if (found !== null) return found;
  }
  return null;
}

const artifactManifestSchema = z
  .strictObject({
    name: z.string().regex(FULL_NAME, FULL_NAME_RULE),
    version: z.string().refine((v) => semver.valid(v) === v, 'a semantic version, such as 1.2.0'),
    /** hook and driver are runtimes of the wider Murmur: read, never installed here (seed 004). */
    runtime: z.enum(['tool', 'skill', 'hook', 'driver']),
    implementation: z.enum(['native', 'wasm']).optional(),
    description: z.string().min(1).max(1024),
    input_schema: z.record(z.string(), z.unknown()).default(EMPTY_INPUT),
    entry: entryPath,
  })
  .superRefine((m, ctx) => {
    if (m.runtime === 'tool' && m.implementation === undefined)
      ctx.addIssue({ code: 'custom', path: ['implementation'], message: 'native or wasm, required for a tool' });
    if (m.runtime === 'skill' && m.implementation !== undefined)
      ctx.addIssue({ code: 'custom', path: ['implementation'], message: 'nothing: a skill is read, not run' });
    if (m.input_schema.type !== 'object')
      ctx.addIssue({ code: 'custom', path: ['input_schema', 'type'], message: '"object": a call’s input is a JSON object' });
    const regex = regexIn(m.input_schema);
    if (regex !== null)
      ctx.addIssue({
        code: 'custom',
        path: ['input_schema', ...regex],
        message: 'no pattern or patternProperties: the door would run the artifact’s regular expression on the model’s input',
      });
  });

export type ArtifactManifest = z.output<typeof artifactManifestSchema>;

/**
 * The artifact's murmur.yaml, read from `text` by its format alone (keys and values, no regular expression in the input
 * schema); `source` names it in a refusal. Whatever reads an artifact reads it with readArtifactManifest.
 */
export function parseArtifactManifest(text: string, source: string): ArtifactManifest {
  return parseYamlConfig(text, source, artifactManifestSchema, ArtifactManifestError);
}

/**
 * The artifact's murmur.yaml as every reader of an artifact takes it (mur pack, mur publish, a pull, staging): parsed,
 * then its input schema compiled with the options a call's check compiles it with (common/input-schemas.ts). A schema
 * Ajv does not compile (an unknown keyword or format, a bad `type`, a `$ref` to nowhere) is refused here, in the one
 * problem format, rather than at the tool's first call.
 */
export async function readArtifactManifest(text: string, source: string): Promise<ArtifactManifest> {
  const manifest = parseArtifactManifest(text, source);
  const fault = await inputSchemaFault(manifest.input_schema);
  if (fault !== null) {
    throw new ArtifactManifestError(source, [
      {
        path: 'input_schema',
        found: `a schema Ajv does not compile (${fault})`,
        allowed: 'a JSON Schema that compiles as a call’s input is checked (Ajv, strict mode)',
      },
    ]);
  }
  return manifest;
}

/** The name the model calls the artifact by. */
export const artifactToolName = (m: ArtifactManifest): string => toolNameOf(m.name);
