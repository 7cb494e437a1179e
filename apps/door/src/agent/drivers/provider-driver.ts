import type { Variables } from '../../config/settings.js';
import type { ProviderChoice } from '../../manifest/inference-choices.js';
import { DriverError } from '../driver.js';
import type { RetryNotice } from './provider-call.js';

/** What every provider driver is built with: its choice, the session's signal, and where retries are told. */
export interface ProviderDriverDeps {
  choice: ProviderChoice;
  /** Aborted when the session ends: joined to every call's task signal. */
  sessionSignal: AbortSignal;
  /** Where the key is read from at each call, by the name api_key_env gives (the environment as the door read it at start). */
  variables: Variables;
  onRetry?: (notice: RetryNotice & { turn: number }) => void;
}

/** The choice's key, read now from its variable; null when the choice sends none. */
export function readKey(deps: ProviderDriverDeps): string | null {
  const { apiKeyEnv } = deps.choice;
  if (apiKeyEnv === null) return null;
  const key = deps.variables.variable(apiKeyEnv);
  if (key === undefined || key === '') throw new DriverError(`${deps.choice.name}: its key variable ${apiKeyEnv} (api_key_env) is not set`);
  return key;
}

/** The attempt's response, assembled: a failure here (a tool call's arguments) is the choice's failure too. */
export function assembled<T>(choice: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new DriverError(`${choice}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
