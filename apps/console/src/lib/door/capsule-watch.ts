/**
 * Whether a door's capsule process is gone, by `mur console`'s own process check (`GET /api/sessions` marks an entry
 * stale when its pid no longer exists). A dead capsule is then marked at once instead of after the client's
 * back-off runs out (issue 14: "a dead capsule is marked within 3 s").
 */
import { CONSOLE_SESSIONS_PATH } from '@murmur/protocol';
import { readSessions } from '../capsules/sessions.svelte.js';

/** How often a reconnecting door is checked. @default 1000 @unit ms */
export const CAPSULE_CHECK_MS = 1000;

/** Why the capsule behind `door` (host:port) is gone, or null when it is not known to be (or is not on this host). */
export async function capsuleGone(door: string, fetcher: typeof fetch = (i, init) => globalThis.fetch(i, init)): Promise<string | null> {
  try {
    const response = await fetcher(CONSOLE_SESSIONS_PATH, { headers: { accept: 'application/json' } });
    if (!response.ok) return null;
    const entry = readSessions(await response.json()).find((s) => s.door === door);
    return entry?.stale ? `the capsule's process ${entry.pid} is gone` : null;
  } catch {
    return null;
  }
}
