import { createHash } from 'node:crypto';
import { lchownSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The first uid of the range the sessions' own users are taken from (docs/sandbox.md, "The sandbox's user"). */
export const SANDBOX_UID_BASE = 1_000_000_000;

/**
 * The host uid (and gid) a session's commands run as when the door is root: 1000000000 plus the first 24 bits of the
 * SHA-256 of the session id, so a resumed session gets its own again and two sessions share one only by chance.
 */
export function sandboxUid(sessionId: string): number {
  return SANDBOX_UID_BASE + createHash('sha256').update(sessionId).digest().readUIntBE(0, 3);
}

/**
 * Makes `dir` and everything under it `uid`'s, never following a link (lchown, and no descent into one), never
 * leaving its filesystem, and never a file with more than one name. Run before any command of the session runs, so
 * nothing is racing it.
 */
export function giveTree(dir: string, uid: number): void {
  const top = lstatSync(dir);
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      const stat = lstatSync(full);
      if (stat.dev !== top.dev) continue;
      // A file with another name may be a host file's (a hard link only a host process can make): never given away.
      if ((stat.uid !== uid || stat.gid !== uid) && (stat.isDirectory() || stat.nlink === 1)) lchownSync(full, uid, uid);
      if (stat.isDirectory()) walk(full);
    }
  };
  if (top.uid !== uid || top.gid !== uid) lchownSync(dir, uid, uid);
  walk(dir);
}
