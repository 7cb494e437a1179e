import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { encodePageToken, type PagePosition, pagePositionText, type SealedPagePosition } from '@murmur/protocol';
import type { TaskStore } from './task-store.js';

/** The door_meta key under which the session's sealing key is kept. */
export const PAGE_TOKEN_KEY = 'page_token_key';

/**
 * Seals and checks ListTasks page tokens with an HMAC under a per-session key kept in the session's store, so a
 * token is accepted only by the session that issued it (also after --resume), and by every caller of that session.
 */
export class PageTokens {
  private constructor(private readonly key: Buffer) {}

  static async open(store: TaskStore): Promise<PageTokens> {
    return PageTokens.withKey(await store.meta(PAGE_TOKEN_KEY, () => randomBytes(32).toString('base64url')));
  }

  /** The tokens of the session whose key this is (base64url, as door_meta keeps it). */
  static withKey(key: string): PageTokens {
    return new PageTokens(Buffer.from(key, 'base64url'));
  }

  issue(position: PagePosition): string {
    return encodePageToken({ ...position, seal: this.seal(position) });
  }

  /** Whether this session issued a token naming this position. */
  issued(position: SealedPagePosition): boolean {
    const expected = Buffer.from(this.seal(position), 'utf8');
    const given = Buffer.from(position.seal, 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** 16 bytes of HMAC-SHA256, base64url: 22 characters. */
  private seal(position: PagePosition): string {
    return createHmac('sha256', this.key).update(pagePositionText(position)).digest().subarray(0, 16).toString('base64url');
  }
}
