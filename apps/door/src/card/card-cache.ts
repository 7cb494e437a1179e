/**
 * The card's HTTP caching (A2A v1.0 §8.6.1): a short max-age and a content-hash ETag. The public card is the same
 * bytes for every caller, so any cache may keep it; the extended card is for token holders only, so only the
 * caller's own cache may (docs/auth.md, "Cards").
 */
import { createHash } from 'node:crypto';

/** Seconds a cache may reuse a card unasked: short, since a door restarted on the same address names a new session. */
const CARD_MAX_AGE_SECONDS = 60;
export const PUBLIC_CARD_CACHE_CONTROL = `public, max-age=${CARD_MAX_AGE_SECONDS}`;
export const EXTENDED_CARD_CACHE_CONTROL = `private, max-age=${CARD_MAX_AGE_SECONDS}`;

/** A card as served: its JSON text and the strong ETag of exactly those bytes. */
export interface ServedCard {
  json: string;
  etag: string;
}

export function servedCard(json: string): ServedCard {
  return { json, etag: `"${createHash('sha256').update(json).digest('base64url')}"` };
}

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether If-None-Match names this ETag (RFC 9110 §13.1.2): `*`, or any listed entity tag equal under the weak
 * comparison. Repeated header lines arrive joined with ", ", which reads as one list.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value.trim() === '*') return true;
  const opaque = etag.slice(1, -1);
  for (const match of value.matchAll(ENTITY_TAG)) if (match[1] === opaque) return true;
  return false;
}
