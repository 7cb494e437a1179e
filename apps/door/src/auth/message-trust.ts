import { type RequestHeaderLines, taskOrigins } from '@murmur/protocol';

/** A message's trust class and origin (x-murmur-task-trust, x-murmur-task-origin): an untrusted task's text is fenced. */
export interface MessageTrust {
  trust: 'trusted' | 'untrusted';
  /** `a2a` for a client's own request, else the origin a murmur runtime stamped (`peer`, `completion`). */
  origin: string;
}

/**
 * A message's trust class and origin, from the runtime headers murmur's runtimes stamp (seed 000, "Runtime
 * headers"). A client that sends neither is trusted, from `a2a`. Any trust value but `trusted` reads as untrusted:
 * a value the door does not know is never given more trust than it asked for.
 */
export function trustOf(headers: Pick<RequestHeaderLines, 'taskTrust' | 'taskOrigin'>): MessageTrust {
  const trustLines = headers.taskTrust.map((v) => v.trim().toLowerCase());
  const origin = taskOrigins(headers)[0] ?? 'a2a';
  const trusted = trustLines.length === 0 || trustLines.every((v) => v === 'trusted');
  return { trust: trusted ? 'trusted' : 'untrusted', origin: /^[a-z0-9_-]+$/.test(origin) ? origin : 'a2a' };
}
