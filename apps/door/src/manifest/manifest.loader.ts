import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type ConfigProblem, NOTHING, shown } from '../config/config-problem.js';
import type { Variables } from '../config/settings.js';
import { parseYamlConfig } from '../config/yaml-config.js';
import { harnessSpec } from './harness-spec.js';
import { ChoiceError, declaredChoices, keyProblem } from './inference-choices.js';
import { type Manifest, manifestSchema } from './manifest.schema.js';

export const MANIFEST_FILE = 'murmur.yaml';

/** A manifest that cannot be used: the message names the file, then each bad key's path, value and what is allowed. */
export class ManifestError extends ConfigError {
  override readonly name = 'ManifestError';
}

export interface LoadedManifest {
  manifest: Manifest;
  /** The capsule's folder: murmur.yaml's directory, where the script and the workdir are. */
  dir: string;
  /** The script file named by inference.script, resolved against dir. */
  scriptPath: string | null;
}

const A_FILE = 'a file, relative to the capsule folder';

export function parseManifest(text: string, file: string): Manifest {
  return parseYamlConfig(text, file, manifestSchema, ManifestError);
}

/**
 * Loads and checks DIR/murmur.yaml: its schema, then what the schema cannot see (the files it names, the driver
 * choices against the environment `vars` reads); every problem in one ManifestError.
 */
export function loadManifest(dir: string, vars: Variables): LoadedManifest {
  const capsuleDir = path.resolve(dir);
  const file = path.join(capsuleDir, MANIFEST_FILE);
  if (!existsSync(file)) throw new ManifestError(file, `no ${MANIFEST_FILE} here; a capsule folder holds one`);
  const manifest = parseManifest(readFileSync(file, 'utf8'), file);
  const problems: ConfigProblem[] = [];
  let scriptPath: string | null = null;
  if (manifest.inference) {
    if (manifest.inference.script !== undefined) {
      scriptPath = path.resolve(capsuleDir, manifest.inference.script);
      if (!existsSync(scriptPath))
        problems.push({ path: 'inference.script', found: `${shown(manifest.inference.script)} (no file at ${scriptPath})`, allowed: A_FILE });
    }
    if (manifest.inference.transport === 'process') harnessSpec(manifest, vars, problems);
    else problems.push(...choiceProblems(manifest, capsuleDir, vars));
  }
  if (manifest.lifecycle.task_acceptance !== 'none' && !manifest.inference) {
    problems.push({
      path: 'inference',
      found: NOTHING,
      allowed: `an inference: block, required when lifecycle.task_acceptance is ${manifest.lifecycle.task_acceptance}, so tasks have a driver to run on`,
    });
  }
  if (problems.length > 0) throw new ManifestError(file, problems);
  return { manifest, dir: capsuleDir, scriptPath };
}

/**
 * The declared driver choices resolve (docs/drivers.md): each script a choice names exists, the environment
 * variables base_url and model name are set, and the starting choice's key variable is set (never printed).
 */
function choiceProblems(manifest: Manifest, capsuleDir: string, vars: Variables): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [name, spec] of Object.entries(manifest.inference!.choices)) {
    const scriptPath = spec.driver === 'script' ? path.resolve(capsuleDir, spec.script) : null;
    if (spec.driver === 'script' && !existsSync(scriptPath!)) {
      problems.push({ path: `inference.choices.${name}.script`, found: `${shown(spec.script)} (no file at ${scriptPath})`, allowed: A_FILE });
    }
  }
  let choices: ReturnType<typeof declaredChoices>;
  try {
    choices = declaredChoices(manifest, capsuleDir, vars);
  } catch (error) {
    if (error instanceof ChoiceError) return [...problems, ...error.problems];
    throw error;
  }
  const start = choices.get(manifest.inference!.driver!)!;
  const problem = keyProblem(start, vars);
  if (problem !== null) {
    problems.push({
      path: 'inference.driver',
      found: `${shown(start.name)} (${problem})`,
      allowed: 'a choice whose key variable is set, or one that sends no key',
    });
  }
  return problems;
}
