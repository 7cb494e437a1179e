/**
 * Whether a door's capsule process is gone, by `mur console`'s own process check (`GET /api/sessions` marks an entry
 * stale when its pid no longer exists). A dead capsule is then marked at once instead of after the client's
 * back-off runs out (issue 14: "a dead capsule is marked within 3 s").
 */
import { CONSOLE_SESSIONS_PATH } from '@murmur/protocol';
import { readSessions } from '../capsules/sessions.svelte.js';
import { getJson } from '../io/console-api.js';

/** How often a reconnecting door is checked. @default 1000 @unit ms */
export const CAPSULE_CHECK_MS = 1000;

/** Why the capsule behind `door` (host:port) is gone, or null when it is not known to be (or is not on this host). */
export async function capsuleGone(door: string): Promise<string | null> {
  try {
    const answer = await getJson(CONSOLE_SESSIONS_PATH, { read: readSessions });
    if (!answer.ok) return null;
    const entry = answer.body.find((s) => s.door === door);
    return entry?.stale ? `the capsule's process ${entry.pid} is gone` : null;
  } catch {
    return null;
  }
}
