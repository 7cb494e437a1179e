import { parseTimestampCeilMs } from '@murmur/protocol';
import { UsageError } from './usage-error.js';

const DURATION = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/**
 * mur run --deadline: an RFC 3339 timestamp in any offset (2026-10-20T14:00:00Z), or a duration from now in hours,
 * minutes and seconds (90s, 30m, 1h30m). Returns the deadline in ms since the epoch (docs/cli.md).
 */
export function parseDeadline(text: string, nowMs: number): number {
  const duration = DURATION.exec(text);
  if (duration && text !== '') {
    const [, h = '0', m = '0', s = '0'] = duration;
    const ms = ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000;
    if (ms === 0) throw new UsageError(`--deadline ${text} is no time at all: give a duration such as 30m, or a timestamp`);
    return nowMs + ms;
  }
  const at = parseTimestampCeilMs(text);
  if (at === null)
    throw new UsageError(`--deadline takes an RFC 3339 timestamp such as 2026-10-20T14:00:00Z or a duration such as 90s, 30m or 1h30m, not '${text}'`);
  return at;
}
