/** RFC 3339 UTC to the second, as seed 004 writes deadlines: 2026-10-20T14:00:00Z. */
export function formatSecondsTimestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
