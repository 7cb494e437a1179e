import { admits } from './allow-entries.js';

/**
 * "Lists localhost" (docs/formations.md, "Egress"): a formation's members share one host, and a call is the caller's
 * own outbound traffic, so it is checked against the caller's capabilities.network.allow. An entry admits a member's
 * door when it is localhost or 127.0.0.1, bare, with :* or with that door's port. `port` null asks whether any entry
 * admits every port (staging's W-RUN-008).
 */
export function listsLocalhost(allow: readonly string[], port: number | null): boolean {
  return admits(allow, 'localhost', port);
}

/**
 * Whether the caller may reach `door`, a door of its own formation: its origin is exactly one of the formation's
 * member doors (`formationDoors`, as the supervisor seated them: on 127.0.0.1, or on the address of `mur run --roster
 * --host`) and the list names localhost for its port. A localhost entry admits those doors and nothing more on
 * that address: any other URL is judged by `allowsUrl`.
 */
export function allowsMemberDoor(allow: readonly string[], door: URL, formationDoors: ReadonlySet<string>): boolean {
  return formationDoors.has(door.origin) && listsLocalhost(allow, portOf(door));
}

/**
 * Whether capabilities.network.allow admits a request to `url`: an entry names its host (localhost and 127.0.0.1 name
 * each other), bare, with :* or with the URL's port. The peer-file tools' outbound requests are checked with it.
 */
export function allowsUrl(allow: readonly string[], url: URL): boolean {
  return admits(allow, url.hostname, portOf(url));
}

function portOf(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}
