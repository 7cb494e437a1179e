import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONTROL_PATH } from '@murmur/protocol';
import { CONTROL_TOKEN_FILE, readControlToken } from '../auth/control-token.js';
import { type MintedToken, readTokens, TOKENS_FILE } from '../auth/tokens.js';
import { UsageError } from './usage-error.js';
import { findSession } from './session-lookup.js';

export const TOKEN_USAGE = 'usage: mur token [SESSION] [--json]   print the door tokens and the control token of a running session';

/**
 * mur token: the tokens the session minted at launch, read from its records folder: the door's (an authenticated
 * door's only) and the control surface's (every door's, docs/control.md).
 */
export function token(argv: string[], out: (line: string) => void): number {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length > 1) throw new UsageError(TOKEN_USAGE);
  const session = findSession(positionals[0]);
  const hasDoorTokens = existsSync(path.join(session.recordsDir, TOKENS_FILE));
  const hasControl = existsSync(path.join(session.recordsDir, CONTROL_TOKEN_FILE));
  if (!hasDoorTokens && !hasControl) {
    throw new UsageError(`session ${session.sessionId} (${session.name}) has no tokens: it is a public door, and its runtime mints no control token`);
  }
  const tokens: MintedToken[] = hasDoorTokens ? readTokens(session.recordsDir) : [];
  const control = hasControl ? readControlToken(session.recordsDir) : null;
  if (values.json) {
    out(JSON.stringify({ sessionId: session.sessionId, url: session.url, tokens, ...(control ? { control } : {}) }));
    return 0;
  }
  for (const t of tokens) out(`${t.credential.padEnd(12)} ${t.token}  ${t.scopes === 'all' ? 'every scope' : t.scopes.join(', ')}`);
  if (control) out(`${'control'.padEnd(12)} ${control.token}  the control surface (${CONTROL_PATH}), not the door`);
  return 0;
}
