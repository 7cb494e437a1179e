import { type Pruned, pruneStale } from '../session/session-registry.js';
import { removeStaleSessionCgroups } from '../tools/sandbox/session-cgroups.js';

/**
 * The registry's stale entries removed (docs/cli.md, "Stale registry entries"), and with each stale session the
 * cgroups its door, killed with SIGKILL, could not remove (docs/sandbox.md, "Resource limits"): a host that runs
 * sessions for months keeps no empty cgroup per crashed door.
 */
export function pruneRegistry(given?: Parameters<typeof pruneStale>[1]): Pruned {
  const pruned = pruneStale(undefined, given);
  for (const session of pruned.sessions) removeStaleSessionCgroups(session.sessionId);
  return pruned;
}
