/** Accepts 1.0 and 1.0.<digits> (seed 000, "A2A-Version"). */
const SERVED_VERSION = /^1\.0(\.\d+)?$/;

export type VersionVerdict = { ok: true } | { ok: false; requestedVersion: string };

/**
 * Reads the A2A-Version header lines of a request. `lines` holds every line's raw value in arrival order
 * (an absent header is []). More than one line is refused whatever their values; requestedVersion joins them with ",".
 */
export function negotiateVersion(lines: readonly string[]): VersionVerdict {
  const [only] = lines;
  if (lines.length === 1 && only !== undefined) {
    if (SERVED_VERSION.test(only.trim())) return { ok: true };
    return { ok: false, requestedVersion: only };
  }
  return { ok: false, requestedVersion: lines.join(',') };
}
