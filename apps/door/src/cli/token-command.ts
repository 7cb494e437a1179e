import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readTokens, TOKENS_FILE } from '../auth/tokens.js';
import { UsageError } from './usage-error.js';
import { findSession } from './session-lookup.js';

export const TOKEN_USAGE = 'usage: mur token [SESSION] [--json]   print the door tokens of a running authenticated session';

/** mur token: the tokens the session minted at launch, read from its records folder. */
export function token(argv: string[], out: (line: string) => void): number {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length > 1) throw new UsageError(TOKEN_USAGE);
  const session = findSession(positionals[0]);
  if (!existsSync(path.join(session.recordsDir, TOKENS_FILE))) {
    throw new UsageError(`session ${session.sessionId} (${session.name}) is a public door: it declares no network.authentication, so it has no tokens`);
  }
  const tokens = readTokens(session.recordsDir);
  if (values.json) out(JSON.stringify({ sessionId: session.sessionId, url: session.url, tokens }));
  else for (const t of tokens) out(`${t.credential.padEnd(12)} ${t.token}  ${t.scopes === 'all' ? 'every scope' : t.scopes.join(', ')}`);
  return 0;
}
