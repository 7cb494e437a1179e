/**
 * The path rules of the planes (docs/planes.md, "Path confinement"), judged on the raw request target before
 * anything is decoded. A path that breaks one is refused with the plane's one refusal, whatever rule it broke.
 */

/** Longest path after the plane's prefix, in bytes of the raw target (PATH_MAX on Linux). */
export const MAX_PATH_BYTES = 4096;
/** Longest decoded segment, in UTF-8 bytes (NAME_MAX on Linux). */
const MAX_SEGMENT_BYTES = 255;

/** A path the rules accept: its decoded segments, and whether it names a folder (a trailing slash). */
export interface PlanePath {
  readonly segments: readonly string[];
  readonly folder: boolean;
}

// Controls (C0 and DEL), both separators, and a percent escape left after one decoding (double encoding).
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const FORBIDDEN = /[\u0000-\u001f\u007f/\\]|%[0-9a-fA-F]{2}/;

/**
 * Parses what follows the plane's prefix in the raw target (`rest` has no query string; '' or '/' is the root).
 * Returns null for every path the rules refuse: an empty segment (`//`, an absolute path), a malformed escape or
 * invalid/overlong UTF-8 (decodeURIComponent is strict), `.` or `..`, a separator or control character in any
 * encoding, double encoding, an over-long segment or path.
 */
export function parsePlanePath(rest: string): PlanePath | null {
  if (rest === '' || rest === '/') return { segments: [], folder: true };
  if (!rest.startsWith('/') || Buffer.byteLength(rest) > MAX_PATH_BYTES) return null;
  const raw = rest.slice(1).split('/');
  const folder = raw[raw.length - 1] === '';
  if (folder) raw.pop();
  const segments: string[] = [];
  for (const piece of raw) {
    const segment = decodeSegment(piece);
    if (segment === null) return null;
    segments.push(segment);
  }
  return { segments, folder };
}

/** One segment, decoded once; null when a rule refuses it. Also the rule for a tool's path argument. */
function decodeSegment(piece: string): string | null {
  if (piece === '') return null;
  let segment: string;
  try {
    segment = decodeURIComponent(piece);
  } catch {
    return null;
  }
  return acceptableName(segment) ? segment : null;
}

/** Whether a decoded name may be a segment of a served path. */
export function acceptableName(name: string): boolean {
  if (name === '' || name === '.' || name === '..') return false;
  if (FORBIDDEN.test(name)) return false;
  // A lone surrogate cannot name a file: decodeURIComponent never yields one, but a tool's argument could.
  if (/\p{Cs}/u.test(name)) return false;
  return Buffer.byteLength(name) <= MAX_SEGMENT_BYTES;
}
