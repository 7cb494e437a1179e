/**
 * Every request the page sends to mur console's origin — its API (`/api/sessions`, `/api/records/…`, `/api/formations`…)
 * and a door's planes through its proxy (`/api/door/<host:port>/…`) — goes through the one fetch here, and every JSON
 * read of them through `getJson`, the one typed getter. No other module calls the global `fetch`: a test replaces
 * this one (`replaceConsoleFetch`) and sees every request the console makes. The door's A2A methods and streams are
 * the client SDK's (`@murmur/client`), not this module's.
 */
import { ConsoleApiError } from './errors.js';

export type ConsoleFetch = (url: string, init?: RequestInit) => Promise<Response>;

let transport: ConsoleFetch = (url, init) => globalThis.fetch(url, init);

/** A request to mur console's origin, through the one replaceable fetch. */
export function consoleFetch(url: string, init?: RequestInit): Promise<Response> {
  return transport(url, init);
}

/** Makes `next` the fetch every console request goes through; returns what puts the previous one back. */
export function replaceConsoleFetch(next: ConsoleFetch): () => void {
  const previous = transport;
  transport = next;
  return () => {
    transport = previous;
  };
}

/** What a JSON read gave: the body, typed, or why not — its HTTP status (null: no answer, or not JSON) in words. */
export type JsonAnswer<T> = { ok: true; body: T } | { ok: false; status: number | null; url: string; why: string };

export interface GetJsonOptions<T> {
  /** Checks the parsed body and returns it typed; throws a ConsoleApiError when it is not what the path answers. */
  read: (body: unknown) => T;
  /** A bearer token for the door behind the proxy (a record plane); mur console's own API takes none. */
  token?: string | null;
  signal?: AbortSignal;
}

/** The `message` of a refusal body (`{"error", "message"}`, the HTTP refusal table), if the answer carries one. */
async function refusalMessage(response: Response): Promise<string | null> {
  const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
  return typeof body?.message === 'string' ? body.message : null;
}

/**
 * The one typed JSON getter: GET `url` (on mur console's origin) and read its body with `options.read`. An answer
 * that is not 2xx, no answer at all, or a body that is not JSON is a `{ok: false}` answer, never a throw, so a
 * caller can fall back (the record plane to mur console's records); an abort the caller asked for is rethrown, and
 * so is what `read` throws.
 */
export async function getJson<T>(url: string, options: GetJsonOptions<T>): Promise<JsonAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await transport(url, { headers, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { ok: false, status: null, url, why: `no answer from ${url}: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!response.ok) {
    const message = await refusalMessage(response);
    return { ok: false, status: response.status, url, why: `${url} answered HTTP ${response.status}${message === null ? '' : `: ${message}`}` };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { ok: false, status: null, url, why: `${url} did not answer JSON: is this page served by mur console?` };
  }
  return { ok: true, body: options.read(body) };
}

/** getJson's body, or a ConsoleApiError that says why there is none (what views show as a problem). */
export async function requireJson<T>(url: string, options: GetJsonOptions<T>): Promise<T> {
  const answer = await getJson(url, options);
  if (answer.ok) return answer.body;
  throw new ConsoleApiError(answer.why, answer.status);
}

/**
 * A body taken as the protocol type its path answers, checked only for being a JSON object: for the record API's
 * answers, whose shapes `@murmur/protocol` defines and the door and mur console both build from the same module.
 */
export function objectBody<T extends object>(what: string): (body: unknown) => T {
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ConsoleApiError(`${what} answered something that is not a JSON object`, null);
    return body as T;
  };
}
