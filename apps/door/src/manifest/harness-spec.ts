/**
 * inference.harness resolved (docs/harness.md, "The manifest"): `${NAME}` and `${NAME:-default}` substituted in
 * base_url and model as in a driver choice, the default endpoint filled in, the key's variable checked at launch.
 */
import type { ConfigProblem } from '../config/config-problem.js';
import { shown } from '../config/config-problem.js';
import type { Variables } from '../config/settings.js';
import { substitute } from './inference-choices.js';
import type { HarnessName, Manifest } from './manifest.schema.js';

export interface HarnessSpec {
  name: HarnessName;
  model: string;
  /** Without a trailing slash. */
  baseUrl: string;
  /** The door's variable holding the provider's key; null when none is sent. Never the key itself. */
  apiKeyEnv: string | null;
  keyAs: 'api-key' | 'auth-token' | 'oauth-token';
  settings: Record<string, unknown>;
  promptSuggestions: boolean;
  /** @unit ms */
  idleTimeoutMs: number;
  /** An executable of the operator's own, or null for the installed pin. */
  binary: string | null;
}

const DEFAULT_BASE_URL: Record<HarnessName, string> = { 'claude-code': 'https://api.anthropic.com', codex: 'https://api.openai.com/v1' };

/** The manifest's harness, or null when it runs none; problems (bad substitutions, an unset key variable) go to `problems`. */
export function harnessSpec(manifest: Manifest, vars: Variables, problems: ConfigProblem[]): HarnessSpec | null {
  const h = manifest.inference?.transport === 'process' ? manifest.inference.harness : undefined;
  if (!h) return null;
  const before = problems.length;
  const written = h.base_url ?? DEFAULT_BASE_URL[h.name];
  const baseUrl = substitute(written, 'inference.harness.base_url', vars, problems)?.replace(/\/+$/, '') ?? null;
  if (baseUrl !== null && !isHttpUrl(baseUrl)) {
    problems.push({
      path: 'inference.harness.base_url',
      found: `${shown(written)}${baseUrl === written ? '' : ` (${shown(baseUrl)} after substitution)`}`,
      allowed: 'an http or https URL',
    });
  }
  const model = substitute(h.model, 'inference.harness.model', vars, problems);
  if (model === '')
    problems.push({
      path: 'inference.harness.model',
      found: `${shown(h.model)} (empty after substitution)`,
      allowed: 'a model name, not empty after substitution',
    });
  if (h.api_key_env !== undefined) {
    const key = vars.variable(h.api_key_env);
    if (key === undefined || key === '') {
      problems.push({
        path: 'inference.harness.api_key_env',
        found: `${shown(h.api_key_env)} (the variable is not set)`,
        allowed: 'a variable that is set: it holds the provider’s key',
      });
    }
  }
  if (problems.length > before || baseUrl === null || model === null) return null;
  return {
    name: h.name,
    model,
    baseUrl,
    apiKeyEnv: h.api_key_env ?? null,
    keyAs: h.key_as ?? 'api-key',
    settings: h.settings,
    promptSuggestions: h.prompt_suggestions,
    idleTimeoutMs: h.idle_timeout_secs * 1000,
    binary: h.binary ?? null,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
