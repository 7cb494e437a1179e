/**
 * The driver choices a manifest declares (docs/drivers.md, "Declaring choices"), resolved: `${NAME}` and
 * `${NAME:-default}` substituted in base_url and model, defaults filled in, script paths resolved against the
 * capsule folder. The built-in `script` choice is declared by inference.script.
 */
import path from 'node:path';
import type { Manifest } from './manifest.schema.js';

export type ProviderDriver = 'openai-compatible' | 'anthropic';

export interface ProviderChoice {
  name: string;
  driver: ProviderDriver;
  baseUrl: string;
  model: string;
  /** The name of the environment variable holding the key; null when no key is sent. Never the key itself. */
  apiKeyEnv: string | null;
  maxOutputTokens: number;
  contextWindow: number | null;
  /** @unit ms */
  idleTimeoutMs: number;
  maxRetries: number;
  /** Anthropic extended thinking's budget; null leaves thinking off. */
  thinkingBudgetTokens: number | null;
}

export interface ScriptChoice {
  name: string;
  driver: 'script';
  scriptPath: string;
}

export type DriverChoice = ProviderChoice | ScriptChoice;

export type Environment = Readonly<Record<string, string | undefined>>;

const DEFAULT_BASE_URL: Record<ProviderDriver, string> = {
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** A choice that cannot be resolved: the message names the key path and the rule. */
export class ChoiceError extends Error {
  override readonly name = 'ChoiceError';
}

/** `${NAME}` / `${NAME:-default}` from the environment; an unset variable without a default is refused. */
function substitute(value: string, where: string, env: Environment): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    throw new ChoiceError(`${where}: the environment variable ${name} is not set and has no default (write \${${name}:-<default>})`);
  });
}

export function declaredChoices(manifest: Manifest, capsuleDir: string, env: Environment): Map<string, DriverChoice> {
  const choices = new Map<string, DriverChoice>();
  const inference = manifest.inference;
  if (!inference) return choices;
  if (inference.script !== undefined) choices.set('script', { name: 'script', driver: 'script', scriptPath: path.resolve(capsuleDir, inference.script) });
  for (const [name, spec] of Object.entries(inference.choices)) {
    const where = `inference.choices.${name}`;
    if (spec.driver === 'script') {
      choices.set(name, { name, driver: 'script', scriptPath: path.resolve(capsuleDir, spec.script) });
      continue;
    }
    const baseUrl = substitute(spec.base_url ?? DEFAULT_BASE_URL[spec.driver], `${where}.base_url`, env).replace(/\/+$/, '');
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
    } catch {
      throw new ChoiceError(`${where}.base_url: ${JSON.stringify(baseUrl)} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ChoiceError(`${where}.base_url: an http or https URL is required`);
    const model = substitute(spec.model, `${where}.model`, env);
    if (model === '') throw new ChoiceError(`${where}.model: empty after substitution`);
    choices.set(name, {
      name,
      driver: spec.driver,
      baseUrl,
      model,
      apiKeyEnv: spec.api_key_env ?? null,
      maxOutputTokens: spec.max_output_tokens,
      contextWindow: spec.context_window ?? null,
      idleTimeoutMs: Math.round(spec.idle_timeout_secs * 1000),
      maxRetries: spec.max_retries,
      thinkingBudgetTokens: spec.driver === 'anthropic' ? (spec.thinking_budget_tokens ?? null) : null,
    });
  }
  return choices;
}

/** Why a choice's key cannot be produced now, or null (a choice that needs no key always can). */
export function keyProblem(choice: DriverChoice, env: Environment): string | null {
  if (choice.driver === 'script' || choice.apiKeyEnv === null) return null;
  const value = env[choice.apiKeyEnv];
  return value === undefined || value === '' ? `its key variable ${choice.apiKeyEnv} (api_key_env) is not set` : null;
}

/** How a choice is described to the model and in messages: `<driver>, <model>`. */
export function describeChoice(choice: DriverChoice): string {
  return choice.driver === 'script' ? 'script' : `${choice.driver}, ${choice.model}`;
}
