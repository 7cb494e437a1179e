import { randomFillSync } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '@murmur/protocol';

/** Random bytes are drawn from the OS this many at a time: one getrandom call per 512 ids, not one per id. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;
let lastMs = -1;
let sequence = 0;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A UUIDv7 (RFC 9562 §5.7) as 32 lowercase hex digits: 48 bits of Unix milliseconds, version 7, 12 bits of
 * sequence (method 1 of §6.2: ids made in the same millisecond count up from a random start, so they sort by
 * creation within this process), variant 10, 62 random bits.
 */
function uuidV7Hex(): string {
  if (poolAt + 10 > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = ((pool[poolAt] << 8) | pool[poolAt + 1]) & 0x7ff;
  } else if (++sequence > 0xfff) {
    // The sequence ran out within one millisecond: borrow the next one, as §6.2 allows.
    lastMs += 1;
    sequence = 0;
  }
  const ms = lastMs;
  const hi = Math.floor(ms / 0x1000000); // the top 24 of 48 bits
  const lo = ms % 0x1000000;
  let out = HEX[(hi >>> 16) & 0xff] + HEX[(hi >>> 8) & 0xff] + HEX[hi & 0xff] + HEX[(lo >>> 16) & 0xff] + HEX[(lo >>> 8) & 0xff] + HEX[lo & 0xff];
  out += HEX[0x70 | (sequence >>> 8)] + HEX[sequence & 0xff];
  out += HEX[0x80 | (pool[poolAt + 2] & 0x3f)];
  for (let i = 3; i < 10; i++) out += HEX[pool[poolAt + i]];
  poolAt += 10;
  return out;
}

/** A fresh identifier: the kind's prefix, then a UUIDv7 as 32 lowercase hex digits, so ids sort by creation time. */
export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + uuidV7Hex();
}
