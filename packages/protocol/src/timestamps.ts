/** RFC 3339 timestamps: the door writes UTC with milliseconds and a Z, and reads any offset (seed 000, "Status timestamps"). */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** Date.UTC without its two-digit-year rule: years 0 to 99 are those years, not 1900 to 1999. */
function utcMs(year: number, monthIndex: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/**
 * Parses an RFC 3339 timestamp to the earliest whole millisecond at or after it, so that
 * `taskMs >= parseTimestampCeilMs(cutoff)` means "at or after the cutoff" exactly. Returns null when invalid.
 */
export function parseTimestampCeilMs(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', , sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = new Date(utcMs(year, month, 0, 0, 0, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  let offsetMinutes = 0;
  if (sign !== undefined) {
    if (Number(oh) > 23 || Number(om) > 59) return null;
    offsetMinutes = (sign === '+' ? 1 : -1) * (Number(oh) * 60 + Number(om));
  }
  // A leap second reads as the last instant of its minute plus one second, as the Date setters carry it.
  const base = utcMs(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const wholeMs = Number(frac.padEnd(3, '0').slice(0, 3));
  const belowMs = frac.length > 3 && /[1-9]/.test(frac.slice(3)) ? 1 : 0;
  return base + wholeMs + belowMs;
}
