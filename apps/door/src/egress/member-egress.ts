/**
 * "Lists localhost" (docs/formations.md, "Egress"): member doors listen on 127.0.0.1, and a call is the caller's own
 * outbound traffic, so it is checked against the caller's capabilities.network.allow. An entry admits a member's
 * door when it is localhost or 127.0.0.1, bare, with :* or with that door's port.
 */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1'];

export function allowsMemberDoor(allow: readonly string[], port: number | null): boolean {
  return allow.some((entry) => {
    const [host, entryPort, ...rest] = entry.trim().toLowerCase().split(':');
    if (rest.length > 0 || !LOOPBACK_NAMES.includes(host)) return false;
    return entryPort === undefined || entryPort === '*' || (port !== null && entryPort === String(port));
  });
}

/**
 * Whether capabilities.network.allow admits a request to `url`: an entry names its host (localhost and 127.0.0.1 name
 * each other), bare, with :* or with the URL's port. The peer-file tools' outbound requests are checked with it.
 */
export function allowsUrl(allow: readonly string[], url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  if (LOOPBACK_NAMES.includes(host)) return allowsMemberDoor(allow, Number(port));
  return allow.some((entry) => {
    const [entryHost, entryPort, ...rest] = entry.trim().toLowerCase().split(':');
    return rest.length === 0 && entryHost === host && (entryPort === undefined || entryPort === '*' || entryPort === port);
  });
}
