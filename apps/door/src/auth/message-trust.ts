import { TASK_ORIGIN_HEADER, TASK_TRUST_HEADER } from '@murmur/protocol';
import type { MessageTrust } from './caller.js';
import { headerLines } from '../rpc/rpc-context.js';

/**
 * A message's trust class and origin, from the runtime headers murmur's runtimes stamp (seed 000, "Runtime
 * headers"). A client that sends neither is trusted, from `a2a`. Any trust value but `trusted` reads as untrusted:
 * a value the door does not know is never given more trust than it asked for.
 */
export function trustOf(rawHeaders: readonly string[]): MessageTrust {
  const trustLines = headerLines(rawHeaders, TASK_TRUST_HEADER).map((v) => v.trim().toLowerCase());
  const origin = headerLines(rawHeaders, TASK_ORIGIN_HEADER)[0]?.trim().toLowerCase() || 'a2a';
  const trusted = trustLines.length === 0 || trustLines.every((v) => v === 'trusted');
  return { trust: trusted ? 'trusted' : 'untrusted', origin: /^[a-z0-9_-]+$/.test(origin) ? origin : 'a2a' };
}
