/** The bounds every artifact archive is read within, whoever sent it (docs/artifacts.md, "The archive and its bounds"). */
export const ARCHIVE_BOUNDS = {
  /** The archive as sent (gzip'd). @unit bytes */
  archiveBytes: 32 * 1024 * 1024,
  /** Its files together, unpacked. @unit bytes */
  unpackedBytes: 64 * 1024 * 1024,
  entries: 1024,
  /** A path's length. @unit bytes */
  pathBytes: 255,
  /** Folders a path may go down. */
  depth: 16,
} as const;

/** What a part of a path may hold: no `\`, no control character, no space, nothing a shell or a terminal reads. */
const PATH_PART = /^[A-Za-z0-9._+@-]+$/;

/** Why `path` is not a path an archive may hold, or null (docs/artifacts.md: no `..`, `.`, empty or absolute part). */
export function pathRefusal(path: string): string | null {
  if (Buffer.byteLength(path) > ARCHIVE_BOUNDS.pathBytes)
    return `the path ${JSON.stringify(path.slice(0, 80))}… is longer than ${ARCHIVE_BOUNDS.pathBytes} bytes`;
  const parts = path.split('/');
  if (parts.length > ARCHIVE_BOUNDS.depth + 1) return `the path ${JSON.stringify(path)} goes more than ${ARCHIVE_BOUNDS.depth} folders deep`;
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || !PATH_PART.test(part)) {
      return `the path ${JSON.stringify(path)} is not a relative path of letters, digits and . _ + @ - (no empty, . or .. part)`;
    }
  }
  return null;
}

/** An archive, a folder or a store answer that is refused: the message says which bound or rule it broke. */
export class ArchiveRefusal extends Error {
  override readonly name = 'ArchiveRefusal';
}
