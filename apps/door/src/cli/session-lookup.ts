import { listSessions, type SessionEntry } from '../session/session-registry.js';
import { UsageError } from './usage-error.js';

/**
 * The running session a client command means: the one named by id (or a unique prefix of it), or by door address,
 * or, with nothing named, the only one running on this host.
 */
export function findSession(named: string | undefined): SessionEntry {
  const running = listSessions().filter((s) => !s.stale);
  if (named === undefined) {
    if (running.length === 1) return running[0];
    if (running.length === 0) throw new UsageError('no session is running on this host (mur run starts one)');
    throw new UsageError(
      `${running.length} sessions are running; name one:\n${running.map((s) => `  ${s.sessionId}  ${s.name} ${s.version}  ${s.url}`).join('\n')}`,
    );
  }
  const matches = running.filter((s) => s.sessionId === named || s.url === named || s.url === `http://${named}` || s.sessionId.startsWith(named));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new UsageError(`no running session is ${named}`);
  throw new UsageError(`${named} names ${matches.length} sessions; give more of the id`);
}
