/**
 * One home for the grammar of capabilities.network.allow (docs/sandbox.md, "Listed destinations"): an entry is
 * `host`, `host:*` or `host:port`, case-insensitive; `localhost` and `127.0.0.1` name each other.
 */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1'];
const PORT = /^[1-9]\d{0,4}$/;

/** An entry as read: its host (`localhost` for either loopback name) and its port, or `any` (bare, or `:*`). */
export interface AllowEntry {
  host: string;
  port: number | 'any';
}

/** The entry, or null when it is not of the grammar (it then admits nothing). */
export function readAllowEntry(entry: string): AllowEntry | null {
  const [name, port, ...rest] = entry.trim().toLowerCase().split(':');
  if (rest.length > 0 || name === '') return null;
  const host = LOOPBACK_NAMES.includes(name) ? 'localhost' : name;
  if (port === undefined || port === '*') return { host, port: 'any' };
  return PORT.test(port) && Number(port) <= 65535 ? { host, port: Number(port) } : null;
}

/** Whether an entry admits `host` (a loopback name reads `localhost`) at `port`. */
export function admits(allow: readonly string[], host: string, port: number | null): boolean {
  const wanted = LOOPBACK_NAMES.includes(host.toLowerCase()) ? 'localhost' : host.toLowerCase();
  return allow.some((entry) => {
    const read = readAllowEntry(entry);
    return read !== null && read.host === wanted && (read.port === 'any' || (port !== null && read.port === port));
  });
}
