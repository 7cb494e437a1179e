/**
 * Hash routes, hand-written (three shapes do not need a library):
 *   #/                              the capsules on this host
 *   #/door/<host:port>[?<query>]    one door: live timeline, tasks (the query holds the table's filters and page)
 *   #/door/<host:port>/tasks/<id>[?entry=N]   one task (N: the record entry to scroll to and highlight)
 *   #/door/<host:port>/files[/<folder>/…]   the door's exported files in that folder, and its peer handles
 *   #/formation/<name>-<pid>        one formation on this host: its members and the calls between them
 *   #/running                       running now: every known door's live tasks (docs/console.md, "Running now")
 * The hash keeps the app a static bundle: `mur console` serves index.html for `/` only.
 */

export type Route =
  | { name: 'capsules' }
  | { name: 'door'; door: string; /** The tasks table's filters and page (task-query.ts), without `?`. */ query?: string }
  | { name: 'task'; door: string; taskId: string; /** The record entry linked to (its index). */ entry?: number }
  | { name: 'files'; door: string; /** The folder under the export root, as segments (none: the root). */ folder: readonly string[] }
  | { name: 'formation'; /** `<name>-<supervisor pid>` (docs/console.md, "Formations"). */ key: string }
  | { name: 'running' }
  | { name: 'not-found'; path: string };

/** Reads `location.hash` (with or without `#`) into a route. */
export function parseRoute(hash: string): Route {
  const [rawPath, ...rest] = hash.replace(/^#/, '').split('?');
  const query = rest.join('?');
  const path = rawPath.replace(/\/+$/, '') || '/';
  if (path === '/') return { name: 'capsules' };
  const parts = path.split('/').slice(1).map(safeDecode);
  if (parts.some((part) => part === null || part === '')) return { name: 'not-found', path };
  const [first, door, third, taskId, ...more] = parts as string[];
  if (first === 'formation' && door !== undefined && third === undefined) return { name: 'formation', key: door };
  if (first === 'running' && door === undefined) return { name: 'running' };
  if (first !== 'door' || door === undefined) return { name: 'not-found', path };
  if (third === undefined) return query === '' ? { name: 'door', door } : { name: 'door', door, query };
  if (third === 'files') return { name: 'files', door, folder: parts.slice(3) as string[] };
  if (third === 'tasks' && taskId !== undefined && more.length === 0) {
    const entry = Number.parseInt(new URLSearchParams(query).get('entry') ?? '', 10);
    return Number.isInteger(entry) && entry >= 0 ? { name: 'task', door, taskId, entry } : { name: 'task', door, taskId };
  }
  return { name: 'not-found', path };
}

/** The `#/…` link of a route. */
export function href(route: Route): string {
  switch (route.name) {
    case 'capsules':
      return '#/';
    case 'door':
      return `#/door/${encodeSegment(route.door)}${route.query ? `?${route.query}` : ''}`;
    case 'task':
      return `#/door/${encodeSegment(route.door)}/tasks/${encodeSegment(route.taskId)}${route.entry === undefined ? '' : `?entry=${route.entry}`}`;
    case 'files':
      return `#/door/${encodeSegment(route.door)}/files${route.folder.map((segment) => `/${encodeSegment(segment)}`).join('')}`;
    case 'formation':
      return `#/formation/${encodeSegment(route.key)}`;
    case 'running':
      return '#/running';
    case 'not-found':
      return `#${route.path}`;
    default: {
      const unreachable: never = route;
      throw new TypeError(`unknown route ${JSON.stringify(unreachable)}`);
    }
  }
}

// `:`, `[` and `]` stay readable in the hash (a door key is `127.0.0.1:41873` or `[::1]:41873`).
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%3A/gi, ':').replace(/%5B/gi, '[').replace(/%5D/gi, ']');
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
