import type { MessageTrust } from '../auth/message-trust.js';
import { fenceUntrusted } from '../auth/untrusted-fence.js';

/**
 * The one place a message's text becomes what the agent reads: an untrusted message's whole text — a new task's,
 * its reference block included, or a reply's — inside the untrusted fence naming its origin (seed 000, "Parts": "A
 * task whose trust class is untrusted has the whole text, fence included, wrapped in the untrusted fence").
 */
export function agentText(text: string, trust: MessageTrust): string {
  return trust.trust === 'untrusted' ? fenceUntrusted(`task:${trust.origin}`, text) : text;
}
