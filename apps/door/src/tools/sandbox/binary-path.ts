import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Resolves a binary name on a PATH (an absolute path is taken as is), or null when nothing executable is there. */
export function resolveOnPath(binary: string, searchPath: string): string | null {
  const candidates = binary.includes('/')
    ? [binary]
    : searchPath
        .split(':')
        .filter(Boolean)
        .map((dir) => path.join(dir, binary));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
