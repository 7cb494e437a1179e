import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ControlTokenWhy, RequestHeaderLines } from '@murmur/protocol';
import { newId } from '../common/ids.js';

/** The session's control token (docs/control.md): the token, and the id the records carry in its place. */
export interface ControlToken {
  tokenId: string;
  token: string;
}

export const CONTROL_TOKEN_FILE = 'control-token.json';

/** Minted at launch on every door; a restart or a --resume mints a new one. */
export function mintControlToken(): ControlToken {
  return { tokenId: newId('controlToken'), token: `mur_ctl_${randomBytes(32).toString('base64url')}` };
}

/** Stored only in the session's records folder, readable by its owner alone (mode 0600). */
export function writeControlToken(recordsDir: string, token: ControlToken): void {
  const file = path.join(recordsDir, CONTROL_TOKEN_FILE);
  writeFileSync(file, `${JSON.stringify(token, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readControlToken(recordsDir: string): ControlToken {
  const parsed = JSON.parse(readFileSync(path.join(recordsDir, CONTROL_TOKEN_FILE), 'utf8')) as ControlToken;
  return { tokenId: parsed.tokenId, token: parsed.token };
}

/** The token dies with the session that minted it. */
export function removeControlToken(recordsDir: string): void {
  rmSync(path.join(recordsDir, CONTROL_TOKEN_FILE), { force: true });
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const BEARER = /^([A-Za-z][A-Za-z0-9._~+/-]*) (.+)$/;

export type ControlVerdict = { ok: true; tokenId: string } | { ok: false; why: ControlTokenWhy | 'none' };

/**
 * The control surface's own check: one `Authorization: Bearer <control token>`, compared by digest in constant
 * time. `isDoorToken` names a door token of this session, refused with its own sentence, never accepted.
 */
export class ControlGate {
  private readonly digest: Buffer;

  constructor(
    private readonly minted: ControlToken,
    private readonly isDoorToken: (token: string) => boolean,
  ) {
    this.digest = digest(minted.token);
  }

  check(headers: Pick<RequestHeaderLines, 'authorization'>): ControlVerdict {
    const lines = headers.authorization;
    if (lines.length === 0) return { ok: false, why: 'none' };
    if (lines.length > 1) return { ok: false, why: 'several-headers' };
    const match = BEARER.exec(lines[0] ?? '');
    if (match?.[1].toLowerCase() !== 'bearer') return { ok: false, why: 'not-bearer' };
    if (timingSafeEqual(digest(match[2]), this.digest)) return { ok: true, tokenId: this.minted.tokenId };
    return { ok: false, why: this.isDoorToken(match[2]) ? 'door-token' : 'unknown-token' };
  }
}
