/**
 * The driver choices a manifest declares (docs/drivers.md, "Declaring choices"), resolved: `${NAME}` and
 * `${NAME:-default}` substituted in base_url and model, defaults filled in, script paths resolved against the
 * capsule folder. The built-in `script` choice is declared by inference.script.
 */
import path from 'node:path';
import { type ConfigProblem, problemLine, shown } from '../config/config-problem.js';
import type { Variables } from '../config/settings.js';
import type { InferenceChoice, Manifest } from './manifest.schema.js';

type ProviderDriver = 'openai-compatible' | 'anthropic';

export interface ProviderChoice {
  name: string;
  driver: ProviderDriver;
  baseUrl: string;
  model: string;
  /** The name of the environment variable holding the key; null when no key is sent. Never the key itself. */
  apiKeyEnv: string | null;
  maxOutputTokens: number;
  contextWindow: number | null;
  /** The provider's input ceiling, or null. */
  maxInputTokens: number | null;
  /** @unit ms */
  idleTimeoutMs: number;
  maxRetries: number;
  /** Anthropic extended thinking's budget; null leaves thinking off. */
  thinkingBudgetTokens: number | null;
}

interface ScriptChoice {
  name: string;
  driver: 'script';
  scriptPath: string;
  /** A scripted model's window and input ceiling (declared choices only); it has no output cap. */
  contextWindow: number | null;
  maxInputTokens: number | null;
}

export type DriverChoice = ProviderChoice | ScriptChoice;

const DEFAULT_BASE_URL: Record<ProviderDriver, string> = {
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** Choices that cannot be resolved: each problem names the key path, the value found and what is allowed. */
export class ChoiceError extends Error {
  override readonly name = 'ChoiceError';
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(problemLine).join('\n'));
  }
}

const SUBSTITUTION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${NAME}` / `${NAME:-default}` from the variables; an unset variable without a default is a problem (null). */
export function substitute(value: string, where: string, vars: Variables, problems: ConfigProblem[]): string | null {
  let unset: string | null = null;
  const out = value.replace(SUBSTITUTION, (whole, name: string, fallback: string | undefined) => {
    const found = vars.variable(name);
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    unset ??= name;
    return whole;
  });
  if (unset === null) return out;
  problems.push({
    path: where,
    found: `${shown(value)} (the environment variable ${unset} is not set and has no default)`,
    allowed: `variables that are set, or a default: \${${unset}:-<default>}`,
  });
  return null;
}

type ProviderSpec = Extract<InferenceChoice, { driver: ProviderDriver }>;

/** One provider choice, resolved; null when a key cannot be, with its problems added to `problems`. */
function providerChoice(name: string, spec: ProviderSpec, vars: Variables, problems: ConfigProblem[]): ProviderChoice | null {
  const where = `inference.choices.${name}`;
  const written = spec.base_url ?? DEFAULT_BASE_URL[spec.driver];
  const substituted = substitute(written, `${where}.base_url`, vars, problems);
  const baseUrl = substituted?.replace(/\/+$/, '') ?? null;
  if (baseUrl !== null) {
    let protocol: string | null = null;
    try {
      protocol = new URL(baseUrl).protocol;
    } catch {
      // not a URL: refused below
    }
    if (protocol !== 'http:' && protocol !== 'https:') {
      const after = substituted === written ? '' : ` (${shown(baseUrl)} after substitution)`;
      problems.push({ path: `${where}.base_url`, found: `${shown(written)}${after}`, allowed: 'an http or https URL' });
    }
  }
  const model = substitute(spec.model, `${where}.model`, vars, problems);
  if (model === '')
    problems.push({ path: `${where}.model`, found: `${shown(spec.model)} (empty after substitution)`, allowed: 'a model name, not empty after substitution' });
  if (baseUrl === null || model === null || model === '' || problems.some((p) => p.path.startsWith(`${where}.`))) return null;
  return {
    name,
    driver: spec.driver,
    baseUrl,
    model,
    apiKeyEnv: spec.api_key_env ?? null,
    maxOutputTokens: spec.max_output_tokens,
    contextWindow: spec.context_window ?? null,
    maxInputTokens: spec.max_input_tokens ?? null,
    idleTimeoutMs: Math.round(spec.idle_timeout_secs * 1000),
    maxRetries: spec.max_retries,
    thinkingBudgetTokens: spec.driver === 'anthropic' ? (spec.thinking_budget_tokens ?? null) : null,
  };
}

/** Every declared choice, resolved; throws one ChoiceError naming every key that cannot be. */
export function declaredChoices(manifest: Manifest, capsuleDir: string, vars: Variables): Map<string, DriverChoice> {
  const choices = new Map<string, DriverChoice>();
  const inference = manifest.inference;
  if (!inference) return choices;
  if (inference.script !== undefined)
    choices.set('script', {
      name: 'script',
      driver: 'script',
      scriptPath: path.resolve(capsuleDir, inference.script),
      contextWindow: null,
      maxInputTokens: null,
    });
  const problems: ConfigProblem[] = [];
  for (const [name, spec] of Object.entries(inference.choices)) {
    if (spec.driver === 'script') {
      choices.set(name, {
        name,
        driver: 'script',
        scriptPath: path.resolve(capsuleDir, spec.script),
        contextWindow: spec.context_window ?? null,
        maxInputTokens: spec.max_input_tokens ?? null,
      });
      continue;
    }
    const choice = providerChoice(name, spec, vars, problems);
    if (choice) choices.set(name, choice);
  }
  if (problems.length > 0) throw new ChoiceError(problems);
  return choices;
}

/** Why a choice's key cannot be produced now, or null (a choice that needs no key always can). */
export function keyProblem(choice: DriverChoice, vars: Variables): string | null {
  if (choice.driver === 'script' || choice.apiKeyEnv === null) return null;
  const value = vars.variable(choice.apiKeyEnv);
  return value === undefined || value === '' ? `its key variable ${choice.apiKeyEnv} (api_key_env) is not set` : null;
}

/** How a choice is described to the model and in messages: `<driver>, <model>`. */
export function describeChoice(choice: DriverChoice): string {
  return choice.driver === 'script' ? 'script' : `${choice.driver}, ${choice.model}`;
}

/** A choice's input budget (seed 004, session-status "context"): the window and the limit that set the budget. */
export interface ContextBudget {
  windowTokens: number;
  budgetTokens: number;
  basis: 'max_input_tokens' | 'context_window_less_output_cap';
}

/** The output cap a choice's calls send: a provider's max_output_tokens; none for the script driver. */
export const outputCapOf = (choice: DriverChoice): number => (choice.driver === 'script' ? 0 : choice.maxOutputTokens);

/**
 * The budget rule of seed 004: the input ceiling, or the window less the output cap the call sends, whichever is
 * smaller; null for a choice with no window (a ceiling alone sets no budget: the seed's budget is "none" without one).
 */
export function contextBudget(choice: DriverChoice | null): ContextBudget | null {
  if (!choice || choice.contextWindow === null) return null;
  const lessCap = Math.max(0, choice.contextWindow - outputCapOf(choice));
  if (choice.maxInputTokens !== null && choice.maxInputTokens < lessCap)
    return { windowTokens: choice.contextWindow, budgetTokens: choice.maxInputTokens, basis: 'max_input_tokens' };
  return { windowTokens: choice.contextWindow, budgetTokens: lessCap, basis: 'context_window_less_output_cap' };
}
