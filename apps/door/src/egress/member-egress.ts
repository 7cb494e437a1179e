import { admits } from './allow-entries.js';

/**
 * "Lists localhost" (docs/formations.md, "Egress"): member doors listen on 127.0.0.1, and a call is the caller's own
 * outbound traffic, so it is checked against the caller's capabilities.network.allow. An entry admits a member's
 * door when it is localhost or 127.0.0.1, bare, with :* or with that door's port.
 */
export function allowsMemberDoor(allow: readonly string[], port: number | null): boolean {
  return admits(allow, 'localhost', port);
}

/**
 * Whether capabilities.network.allow admits a request to `url`: an entry names its host (localhost and 127.0.0.1 name
 * each other), bare, with :* or with the URL's port. The peer-file tools' outbound requests are checked with it.
 */
export function allowsUrl(allow: readonly string[], url: URL): boolean {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return admits(allow, url.hostname, port);
}
