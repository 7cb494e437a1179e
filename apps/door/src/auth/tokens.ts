import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Manifest } from '../manifest/manifest.schema.js';
import { OPERATOR_PRINCIPAL } from './caller.js';

/** One door token: the credential it stands for and the scopes it reaches ("all" for the operator). */
export interface MintedToken {
  credential: string;
  scopes: string[] | 'all';
  token: string;
}

export const TOKENS_FILE = 'tokens.json';

/** 32 random bytes, base64url, behind a prefix that makes a leaked one easy to recognise. */
function newToken(): string {
  return `mur_${randomBytes(32).toString('base64url')}`;
}

/**
 * Mints the session's tokens at launch: the operator's, with every scope, then one per declared credential.
 * A restart or a --resume mints new ones, so a token is valid only for the run that minted it.
 */
export function mintTokens(manifest: Manifest): MintedToken[] {
  const declared = manifest.network.authentication?.credentials ?? {};
  return [
    { credential: OPERATOR_PRINCIPAL, scopes: 'all', token: newToken() },
    ...Object.entries(declared).map(([credential, { scopes }]) => ({ credential, scopes: [...scopes], token: newToken() })),
  ];
}

/** Stored only in the session's records folder, readable by its owner alone (mode 0600). */
export function writeTokens(recordsDir: string, tokens: MintedToken[]): string {
  const file = path.join(recordsDir, TOKENS_FILE);
  writeFileSync(file, `${JSON.stringify({ tokens }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** The tokens die with the session that minted them: the file goes when the session ends. */
export function removeTokens(recordsDir: string): void {
  rmSync(path.join(recordsDir, TOKENS_FILE), { force: true });
}

export function readTokens(recordsDir: string): MintedToken[] {
  const parsed = JSON.parse(readFileSync(path.join(recordsDir, TOKENS_FILE), 'utf8')) as { tokens: MintedToken[] };
  return parsed.tokens;
}
