/**
 * Hash routes, hand-written (three shapes do not need a library):
 *   #/                              the capsules on this host
 *   #/door/<host:port>              one door: live timeline, tasks, send, card, stop
 *   #/door/<host:port>/tasks/<id>   one task
 * The hash keeps the app a static bundle: `mur console` serves index.html for `/` only.
 */

export type Route =
  | { name: 'capsules' }
  | { name: 'door'; door: string }
  | { name: 'task'; door: string; taskId: string }
  | { name: 'not-found'; path: string };

/** Reads `location.hash` (with or without `#`) into a route. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/\/+$/, '') || '/';
  if (path === '/') return { name: 'capsules' };
  const parts = path.split('/').slice(1).map(safeDecode);
  if (parts.some((part) => part === null || part === '')) return { name: 'not-found', path };
  const [first, door, third, taskId, ...rest] = parts as string[];
  if (first !== 'door' || door === undefined) return { name: 'not-found', path };
  if (third === undefined) return { name: 'door', door };
  if (third === 'tasks' && taskId !== undefined && rest.length === 0) return { name: 'task', door, taskId };
  return { name: 'not-found', path };
}

/** The `#/…` link of a route. */
export function href(route: Route): string {
  switch (route.name) {
    case 'capsules':
      return '#/';
    case 'door':
      return `#/door/${encodeSegment(route.door)}`;
    case 'task':
      return `#/door/${encodeSegment(route.door)}/tasks/${encodeSegment(route.taskId)}`;
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
