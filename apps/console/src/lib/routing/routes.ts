/**
 * Hash routes, hand-written (a handful of shapes do not need a library):
 *   #/                              the capsules on this host
 *   #/door/<host:port>[?<query>]    one door: live timeline, tasks (the query holds the table's filters and page)
 *   #/door/<host:port>/tasks/<id>[?entry=N]   one task (N: the record entry to scroll to and highlight)
 *   #/door/<host:port>/tasks/<id>?toolCall=<id>   one task, its entry for that tool call highlighted
 *   #/door/<host:port>/files[/<folder>/…]   the door's exported files in that folder, and its peer handles
 *   #/door/<host:port>/rollups[?<query>]   where the time and the tokens went in the door's session (the query: the tasks table's filters)
 *   #/formation/<name>-<pid>        one formation on this host: its members and the calls between them
 *   #/compare/<task A>/<task B>[?a=N&b=M]   two tasks' records side by side (N, M: one attempt of each)
 *   #/formation/<name>-<pid>/rollups[?<query>]   the same over the formation's members
 *   #/running                       running now: every known door's live tasks (docs/console.md, "Running now")
 * The hash keeps the app a static bundle: `mur console` serves index.html for `/` only.
 */

export type Route =
  | { name: 'capsules' }
  | { name: 'door'; door: string /** The tasks table's filters and page (task-query.ts), without `?`. */; query?: string }
  | {
      name: 'task';
      door: string;
      taskId: string /** The record entry linked to (its index). */;
      entry?: number /** Or the tool-call entry linked to, by its tool call id. */;
      toolCall?: string;
    }
  | { name: 'files'; door: string /** The folder under the export root, as segments (none: the root). */; folder: readonly string[] }
  | { name: 'formation' /** `<name>-<supervisor pid>` (docs/console.md, "Formations"). */; key: string }
  | {
      name: 'compare';
      a: string;
      b: string;
      /** One attempt of a reopened task (from 1); absent: the whole record (docs/console.md, "Compare two runs"). */
      attemptA?: number;
      attemptB?: number;
    }
  | { name: 'rollups'; door: string /** The tasks table's filters (task-query.ts), without `?`. */; query?: string }
  | { name: 'formation-rollups'; key: string; query?: string }
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
  if (first === 'compare' && door !== undefined && third !== undefined && taskId === undefined) return compareRoute(door, third, query);
  if (first === 'formation' && door !== undefined && third === 'rollups' && taskId === undefined)
    return query === '' ? { name: 'formation-rollups', key: door } : { name: 'formation-rollups', key: door, query };
  if (first === 'running' && door === undefined) return { name: 'running' };
  if (first !== 'door' || door === undefined) return { name: 'not-found', path };
  if (third === undefined) return query === '' ? { name: 'door', door } : { name: 'door', door, query };
  if (third === 'rollups' && taskId === undefined) return query === '' ? { name: 'rollups', door } : { name: 'rollups', door, query };
  if (third === 'files') return { name: 'files', door, folder: parts.slice(3) as string[] };
  if (third === 'tasks' && taskId !== undefined && more.length === 0) {
    const params = new URLSearchParams(query);
    const entry = Number.parseInt(params.get('entry') ?? '', 10);
    if (Number.isInteger(entry) && entry >= 0) return { name: 'task', door, taskId, entry };
    const toolCall = params.get('toolCall');
    return toolCall ? { name: 'task', door, taskId, toolCall } : { name: 'task', door, taskId };
  }
  return { name: 'not-found', path };
}

function taskQuery(route: { entry?: number; toolCall?: string }): string {
  if (route.entry !== undefined) return `?entry=${route.entry}`;
  return route.toolCall ? `?toolCall=${encodeURIComponent(route.toolCall)}` : '';
}

/** The `#/…` link of a route. */
export function href(route: Route): string {
  switch (route.name) {
    case 'capsules':
      return '#/';
    case 'door':
      return `#/door/${encodeSegment(route.door)}${route.query ? `?${route.query}` : ''}`;
    case 'task':
      return `#/door/${encodeSegment(route.door)}/tasks/${encodeSegment(route.taskId)}${taskQuery(route)}`;
    case 'files':
      return `#/door/${encodeSegment(route.door)}/files${route.folder.map((segment) => `/${encodeSegment(segment)}`).join('')}`;
    case 'formation':
      return `#/formation/${encodeSegment(route.key)}`;
    case 'compare': {
      const query = new URLSearchParams();
      if (route.attemptA !== undefined) query.set('a', String(route.attemptA));
      if (route.attemptB !== undefined) query.set('b', String(route.attemptB));
      return `#/compare/${encodeSegment(route.a)}/${encodeSegment(route.b)}${query.size > 0 ? `?${query}` : ''}`;
    }
    case 'rollups':
      return `#/door/${encodeSegment(route.door)}/rollups${route.query ? `?${route.query}` : ''}`;
    case 'formation-rollups':
      return `#/formation/${encodeSegment(route.key)}/rollups${route.query ? `?${route.query}` : ''}`;
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

function compareRoute(a: string, b: string, query: string): Route {
  const params = new URLSearchParams(query);
  const attempt = (key: string) => {
    const n = Number.parseInt(params.get(key) ?? '', 10);
    return Number.isInteger(n) && n >= 1 ? n : undefined;
  };
  const attemptA = attempt('a');
  const attemptB = attempt('b');
  return { name: 'compare', a, b, ...(attemptA === undefined ? {} : { attemptA }), ...(attemptB === undefined ? {} : { attemptB }) };
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
