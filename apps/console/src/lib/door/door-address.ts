/**
 * Door addresses as the console names them: `host:port`, the key of a door in routes, in sessionStorage and in the
 * proxy path `mur console` serves (`/api/door/<host>:<port>/…`: loopback doors, and the doors added with `--door`).
 */
import { CONSOLE_DOOR_PROXY_PREFIX, isLoopbackHost } from '@murmur/protocol';

/** A door the console's proxy can reach: a loopback one, or one added with `mur console --door`. */
interface DoorAddress {
  /** `127.0.0.1`, `127.x.y.z` or `[::1]` (brackets kept: it is how the host appears in a URL, in the key and in protocol's parseHostPort). */
  host: string;
  port: number;
  /** `host:port`, e.g. `127.0.0.1:41873`. */
  key: string;
}

export type AddressVerdict = { ok: true; address: DoorAddress } | { ok: false; message: string };

const LOOPBACK_ONLY = 'mur console only reaches doors on this host: use a loopback address such as 127.0.0.1:41873 (or localhost, [::1])';

/**
 * Reads what an operator types to reach a door: `host:port`, `http://host:port[/…]` (a card's interface URL), or a
 * bare port (meaning 127.0.0.1). `localhost` becomes 127.0.0.1, where `mur run` listens by default. Any other host
 * is refused with a sentence saying why.
 */
export function parseDoorAddress(input: string, added: ReadonlySet<string> = new Set()): AddressVerdict {
  const text = input.trim();
  if (text === '') return { ok: false, message: 'Type the address of a door, such as 127.0.0.1:41873.' };
  let raw = text;
  if (/^\d{1,5}$/.test(raw)) raw = `127.0.0.1:${raw}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1].toLowerCase() ?? null;
  if (scheme !== null && scheme !== 'http' && scheme !== 'https') {
    return { ok: false, message: `The console reaches doors over plain http on this host, not ${scheme}://.` };
  }
  let url: URL;
  try {
    url = new URL(scheme ? raw : `http://${raw}`);
  } catch {
    return { ok: false, message: `"${text}" is not a door address; write it as host:port, such as 127.0.0.1:41873.` };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, message: 'A door address carries no user name or password.' };
  // A door `mur console --door` added is reached by its exact host:port, loopback or not, over the scheme it was
  // added with (an https door too: mur console's proxy speaks https to it).
  const addedKey = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (added.has(addedKey)) return { ok: true, address: { host: url.hostname, port: Number(addedKey.slice(addedKey.lastIndexOf(':') + 1)), key: addedKey } };
  if (scheme === 'https') return { ok: false, message: 'The console reaches doors over plain http on this host, not https://.' };
  if (!isLoopbackHost(url.hostname))
    return { ok: false, message: `${url.hostname} is not a loopback address. ${LOOPBACK_ONLY}, or a door added with mur console --door.` };
  if (url.port === '') return { ok: false, message: `Add the door's port, such as ${url.hostname}:41873.` };
  const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
  const port = Number(url.port);
  return { ok: true, address: { host, port, key: `${host}:${port}` } };
}

/** The door key of a session's registered URL (`http://127.0.0.1:41873` → `127.0.0.1:41873`), or null when it has none. */
export function doorKeyOfUrl(url: string, added: ReadonlySet<string> = new Set()): string | null {
  const verdict = parseDoorAddress(url, added);
  return verdict.ok ? verdict.address.key : null;
}

/** The address a MurmurClient uses for a door: the same-origin proxy of `mur console`. */
export function proxyAddress(origin: string, key: string): string {
  return `${origin.replace(/\/+$/, '')}${CONSOLE_DOOR_PROXY_PREFIX}${key}`;
}
