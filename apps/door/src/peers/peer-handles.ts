import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../common/ids.js';

/** A handle's secret: `phk_` and 43 base64url characters, 32 random bytes (docs/planes.md, "The peer plane"). */
const HANDLE_PATTERN = /^phk_[A-Za-z0-9_-]{43}$/;

export const DEFAULT_HANDLE_TTL_SECS = 15 * 60;
export const MAX_HANDLE_TTL_SECS = 60 * 60;
export const MAX_HANDLE_USES = 10;

/** What a handle names: one regular file under the peer export root, fixed by device and inode at minting. */
export interface SharedFile {
  readonly segments: readonly string[];
  readonly dev: number;
  readonly ino: number;
}

/** A live handle, known by its id; the secret itself is not kept, only its SHA-256. */
export interface PeerHandle {
  readonly id: string;
  readonly audience: string;
  readonly file: SharedFile;
  readonly expiresAtMs: number;
  readonly uses: number;
  used: number;
}

/** Why a redeem was refused: written to the trace, never to the wire (one refusal for all). */
export type RedeemRefusal = 'malformed' | 'unknown' | 'expired' | 'used_up' | 'wrong_audience' | 'file_gone';

export type RedeemVerdict = { ok: true; handle: PeerHandle } | { ok: false; why: RedeemRefusal; handleId: string | null };

const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * The peer handles this door minted (share-file) and serves (the peer plane), in memory: a restart forgets them. It
 * lives in session/ so that tools/ (which mints) and planes/ (which redeems) both reach it without a sideways import.
 */
export class PeerHandles {
  private readonly byDigest = new Map<string, PeerHandle>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Mints a handle; returns its secret (for the URL, never kept) and the record. */
  mint(input: { audience: string; file: SharedFile; ttlSecs: number; uses: number }): { secret: string; handle: PeerHandle } {
    this.sweep();
    const secret = `phk_${randomBytes(32).toString('base64url')}`;
    const handle: PeerHandle = {
      id: newId('handle'),
      audience: input.audience,
      file: input.file,
      expiresAtMs: this.now() + input.ttlSecs * 1000,
      uses: input.uses,
      used: 0,
    };
    this.byDigest.set(digest(secret), handle);
    return { secret, handle };
  }

  /** Looks a handle up for an audience; consumes nothing (see consume). */
  check(secret: string, audience: string | undefined): RedeemVerdict {
    if (!HANDLE_PATTERN.test(secret)) return { ok: false, why: 'malformed', handleId: null };
    const handle = this.byDigest.get(digest(secret));
    if (handle === undefined) return { ok: false, why: 'unknown', handleId: null };
    if (this.now() >= handle.expiresAtMs) return { ok: false, why: 'expired', handleId: handle.id };
    if (handle.used >= handle.uses) return { ok: false, why: 'used_up', handleId: handle.id };
    if (audience !== handle.audience) return { ok: false, why: 'wrong_audience', handleId: handle.id };
    return { ok: true, handle };
  }

  /** Takes one use: a GET answered 200, when its headers are sent. */
  consume(handle: PeerHandle): void {
    handle.used += 1;
  }

  /** The handles minted so far, without their secrets (for a listing). */
  list(): readonly PeerHandle[] {
    return [...this.byDigest.values()];
  }

  /** Forgets handles expired for over a minute, so the map does not grow with a long session. */
  private sweep(): void {
    const cutoff = this.now() - 60_000;
    for (const [key, handle] of this.byDigest) if (handle.expiresAtMs < cutoff) this.byDigest.delete(key);
  }
}

const SECRET_ANYWHERE = /phk_[A-Za-z0-9_-]{43}/g;

/** A value with every handle secret in it replaced by `phk_…`: what the trace keeps of a tool call's input and output. */
export function redactHandles<T>(value: T): T {
  const text = JSON.stringify(value);
  if (text === undefined || !text.includes('phk_')) return value;
  return JSON.parse(text.replace(SECRET_ANYWHERE, 'phk_…')) as T;
}
