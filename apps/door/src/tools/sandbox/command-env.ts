import type { Variables } from '../../config/settings.js';

/** The door's own variables a command inherits when set: the locale and the terminal, nothing that could be a secret. */
const INHERITED = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ'] as const;

export interface CommandEnvOptions {
  /** PATH inside the sandbox: the door's PATH, less the folders a command cannot see. */
  path: string;
  /** HOME inside the sandbox: a private folder of the command's own. */
  home: string;
  /** The variables the manifest passes by name (capabilities.shell.env), read from the door's environment. */
  passed: readonly string[];
  /** The session's mark, which finds a command's processes after they left its process group (process-registry.ts). */
  mark: readonly [name: string, value: string];
  variables: Variables;
}

/**
 * A command's whole environment (docs/sandbox.md, "Environment"): an allow-list, never the door's environment, so no
 * provider key, token or setting reaches a command unless the manifest names it in capabilities.shell.env.
 */
export function commandEnv(options: CommandEnvOptions): Record<string, string> {
  const env: Record<string, string> = { PATH: options.path, HOME: options.home };
  for (const name of INHERITED) {
    const value = options.variables.variable(name);
    if (value !== undefined) env[name] = value;
  }
  for (const name of options.passed) {
    const value = options.variables.variable(name);
    if (value !== undefined) env[name] = value;
  }
  env[options.mark[0]] = options.mark[1];
  return env;
}
