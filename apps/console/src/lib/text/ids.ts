/**
 * How the console shows a murmur id (`tsk_`, `ses_`, `ctx_`… and 32 hex digits): its prefix and its last 8 digits.
 * A UUIDv7 begins with its creation time, so ids made close together share their first digits; their ends differ.
 */

/** Hex digits kept at the end. */
const TAIL = 8;

/** `head` and `tail` are shown, `hidden` (the middle) is kept for the accessible name; `hidden` '' means shown whole. */
export function shortId(id: string): { head: string; hidden: string; tail: string } {
  const underscore = id.indexOf('_');
  const head = id.slice(0, underscore + 1);
  const rest = id.slice(underscore + 1);
  if (rest.length <= TAIL + 4) return { head: id, hidden: '', tail: '' };
  return { head, hidden: rest.slice(0, -TAIL), tail: rest.slice(-TAIL) };
}
