/**
 * Loopback hosts and `host:port`: what `mur console`'s proxy reaches (loopback doors only) and how the console
 * names a door. Environment-free (no node:net), so the browser and the door read an address the same way.
 */

/** Whether four dotted decimals name an address in 127.0.0.0/8 (RFC 1122 §3.2.1.3). */
function isLoopbackIpv4(text: string): boolean {
  const octets = ipv4Octets(text);
  return octets !== null && octets[0] === 127;
}

/** Four decimal octets 0–255 without leading zeros (which some resolvers read as octal), or null. */
function ipv4Octets(text: string): [number, number, number, number] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    octets.push(value);
  }
  return octets as [number, number, number, number];
}

/**
 * An IPv6 address (RFC 4291 §2.2: hex groups, one `::`, an IPv4 tail) as its eight 16-bit groups, or null when
 * it is not one. Zone ids (`%eth0`) are refused: a loopback address needs none.
 */
export function ipv6Groups(text: string): number[] | null {
  if (text === '' || text.includes('%')) return null;
  let head = text;
  const tail: number[] = [];
  const lastColon = head.lastIndexOf(':');
  if (head.includes('.')) {
    const octets = ipv4Octets(head.slice(lastColon + 1));
    if (octets === null) return null;
    tail.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
    head = head.slice(0, lastColon + 1);
    // "::1.2.3.4" leaves "::"; "::ffff:1.2.3.4" leaves "::ffff:"; a single trailing colon is not part of a "::".
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const read = (half: string): number[] | null => {
    if (half === '') return [];
    const groups: number[] = [];
    for (const group of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const left = read(halves[0] ?? '');
  const right = halves.length === 2 ? read(halves[1] ?? '') : [];
  if (left === null || right === null) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 2) {
    if (given > 7) return null;
    return [...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail];
  }
  return given === 8 ? [...left, ...tail] : null;
}

/** ::1 in any spelling (RFC 4291 §2.5.3), or an IPv4-mapped 127.0.0.0/8 address (::ffff:127.0.0.1, §2.5.5.2). */
function isLoopbackIpv6(text: string): boolean {
  const groups = ipv6Groups(text);
  if (groups === null) return false;
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeros(7) && groups[7] === 1) return true;
  return zeros(5) && groups[5] === 0xffff && (groups[6] ?? 0) >> 8 === 127;
}

/**
 * Whether a host names this machine's loopback: `localhost`, 127.0.0.0/8, or ::1 in any spelling, with or without
 * the brackets a URL puts around an IPv6 address (`[::1]`, `[0:0:0:0:0:0:0:1]`). Case-insensitive.
 */
export function isLoopbackHost(host: string): boolean {
  const text = host.trim().toLowerCase();
  const bracketed = /^\[(.*)\]$/.exec(text)?.[1];
  if (bracketed !== undefined) return isLoopbackIpv6(bracketed);
  if (text === 'localhost' || text === 'localhost.') return true;
  return isLoopbackIpv4(text) || isLoopbackIpv6(text);
}

/** A door's host and port; `host` keeps an IPv6 address's brackets (`[::1]`), as a URL and `host:port` write it. */
export interface HostPort {
  host: string;
  port: number;
}

/**
 * Splits `127.0.0.1:41873`, `localhost:41873` or `[::1]:41873` into host and port (1–65535), or null when the text is
 * not host:port. An IPv6 host must be bracketed (`::1:41873` is ambiguous); its brackets are kept.
 */
export function parseHostPort(text: string): HostPort | null {
  const [, host, portText] = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text) ?? [];
  if (host === undefined || portText === undefined) return null;
  if (host.startsWith('[') && ipv6Groups(host.slice(1, -1)) === null) return null;
  const port = Number(portText);
  return port > 0 && port <= 65535 ? { host, port } : null;
}

/** The host as a socket wants it: an IPv6 address without its brackets. */
export function unbracketHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}
