import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import type * as z from 'zod';
import { ChoiceError, declaredChoices, keyProblem } from './inference-choices.js';
import { type Manifest, manifestSchema } from './manifest.schema.js';

export const MANIFEST_FILE = 'murmur.yaml';

/** A manifest that cannot be used: the message names the file, the key path and the rule. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

export interface LoadedManifest {
  manifest: Manifest;
  /** The capsule's folder: murmur.yaml's directory, where the script and the workdir are. */
  dir: string;
  /** The script file named by inference.script, resolved against dir. */
  scriptPath: string | null;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') return `${where}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  // A refused record key (a credential name): the rule is in the key's own issues, not in zod's "Invalid key in record".
  if (issue.code === 'invalid_key' && issue.issues.length > 0) return `${where}: ${issue.issues.map((i) => i.message).join('; ')}`;
  return `${where}: ${issue.message}`;
}

export function parseManifest(text: string, file: string): Manifest {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) throw new ManifestError(`${file}: not valid YAML: ${doc.errors[0].message}`);
  const value: unknown = doc.toJS();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ManifestError(`${file}: must be a mapping of keys`);
  const result = manifestSchema.safeParse(value);
  if (!result.success) throw new ManifestError(`${file}:\n  ${result.error.issues.map(describeIssue).join('\n  ')}`);
  return result.data;
}

export function loadManifest(dir: string): LoadedManifest {
  const capsuleDir = path.resolve(dir);
  const file = path.join(capsuleDir, MANIFEST_FILE);
  if (!existsSync(file)) throw new ManifestError(`${file}: no ${MANIFEST_FILE} here; a capsule folder holds one`);
  const manifest = parseManifest(readFileSync(file, 'utf8'), file);
  let scriptPath: string | null = null;
  if (manifest.inference) {
    if (manifest.inference.script !== undefined) {
      scriptPath = path.resolve(capsuleDir, manifest.inference.script);
      if (!existsSync(scriptPath)) throw new ManifestError(`${file}: inference.script: no file at ${scriptPath}`);
    }
    checkChoices(manifest, capsuleDir, file);
  }
  if (manifest.lifecycle.task_acceptance !== 'none' && !manifest.inference) {
    throw new ManifestError(`${file}: inference: required when lifecycle.task_acceptance is ${manifest.lifecycle.task_acceptance}, so tasks have a driver to run on`);
  }
  return { manifest, dir: capsuleDir, scriptPath };
}

/**
 * The declared driver choices resolve (docs/drivers.md): each script a choice names exists, the environment
 * variables base_url and model name are set, and the starting choice's key variable is set (never printed).
 */
function checkChoices(manifest: Manifest, capsuleDir: string, file: string): void {
  let choices: ReturnType<typeof declaredChoices>;
  try {
    choices = declaredChoices(manifest, capsuleDir, process.env);
  } catch (error) {
    if (error instanceof ChoiceError) throw new ManifestError(`${file}: ${error.message}`);
    throw error;
  }
  for (const choice of choices.values()) {
    if (choice.driver === 'script' && choice.name !== 'script' && !existsSync(choice.scriptPath)) {
      throw new ManifestError(`${file}: inference.choices.${choice.name}.script: no file at ${choice.scriptPath}`);
    }
  }
  const start = choices.get(manifest.inference!.driver)!;
  const problem = keyProblem(start, process.env);
  if (problem !== null) throw new ManifestError(`${file}: inference.driver: the starting choice '${start.name}' cannot be used: ${problem}`);
}
