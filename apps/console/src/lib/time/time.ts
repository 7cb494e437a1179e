/** Times as an operator reads them: relative at a glance, exact on hover. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `just now`, `12 s ago`, `3 min ago`, `2 h ago`, `4 d ago` (or `in …` for a time ahead of the clock). */
export function relativeTime(at: string | number | Date, nowMs: number): string {
  const ms = toMs(at);
  if (Number.isNaN(ms)) return 'unknown time';
  const delta = nowMs - ms;
  const span = Math.abs(delta);
  if (span < 5 * SECOND) return 'just now';
  let text: string;
  if (span < MINUTE) text = `${Math.floor(span / SECOND)} s`;
  else if (span < HOUR) text = `${Math.floor(span / MINUTE)} min`;
  else if (span < DAY) text = `${Math.floor(span / HOUR)} h`;
  else text = `${Math.floor(span / DAY)} d`;
  return delta >= 0 ? `${text} ago` : `in ${text}`;
}

/** The exact time for a `title`: local time with milliseconds, then the UTC timestamp as the door wrote it. */
export function exactTime(at: string | number | Date): string {
  const ms = toMs(at);
  if (Number.isNaN(ms)) return String(at);
  const date = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const local = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  return `${local} local · ${date.toISOString()}`;
}

/** `850 ms`, `1.2 s`, `3 min 4 s`, `2 h 5 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  if (ms < MINUTE) return `${(ms / SECOND).toFixed(ms < 10 * SECOND ? 1 : 0)} s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ${Math.floor((ms % MINUTE) / SECOND)} s`;
  return `${Math.floor(ms / HOUR)} h ${Math.floor((ms % HOUR) / MINUTE)} min`;
}

/** A `datetime-local` input's value (local wall time) as the RFC 3339 UTC timestamp ListTasks reads, or null. */
export function localInputToTimestamp(value: string): string | null {
  if (value.trim() === '') return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** An RFC 3339 timestamp as a `datetime-local` input's value (local wall time, seconds), or '' when unreadable. */
export function timestampToLocalInput(at: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return '';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function toMs(at: string | number | Date): number {
  if (typeof at === 'number') return at;
  if (at instanceof Date) return at.getTime();
  return Date.parse(at);
}
