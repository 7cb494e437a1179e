/**
 * The operator plane of a door (docs/planes.md), reached through mur console's proxy: URLs of a folder and a file,
 * and one authenticated GET/HEAD that turns a refusal into the client's HttpRefusalError, so describeError words it
 * like any other answer of the door (401 opens the token prompt, 403 insufficient_scope names the scope).
 */
import { HttpRefusalError } from '@murmur/client';
import { type AgentCard, CAPSULE_EXTENSION_URI, FILES_PLANE_PATH } from '@murmur/protocol';
import { consoleFetch } from '../io/console-api.js';

/** The plane's URL of a folder (trailing slash: a listing) or a file (no slash: its bytes) under `base`. */
export function planeUrl(base: string, segments: readonly string[], kind: 'folder' | 'file'): string {
  const path = segments.map(encodeURIComponent).join('/');
  if (kind === 'file') return `${base}${FILES_PLANE_PATH}/${path}`;
  return `${base}${FILES_PLANE_PATH}/${path === '' ? '' : `${path}/`}`;
}

/** GET or HEAD on the plane with the door token, if any; a non-2xx answer throws HttpRefusalError. */
export async function planeRequest(
  url: string,
  options: { method?: 'GET' | 'HEAD'; token: string | null; range?: string; signal?: AbortSignal },
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.token !== null) headers.authorization = `Bearer ${options.token}`;
  if (options.range) headers.range = options.range;
  const response = await consoleFetch(url, { method: options.method ?? 'GET', headers, signal: options.signal, cache: 'no-store' });
  if (response.ok) return response;
  let code: string | null = null;
  let message = `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // a HEAD, or a body that is not the door's refusal: the status says enough
  }
  throw new HttpRefusalError({ status: response.status, wwwAuthenticate: response.headers.get('www-authenticate'), code, message });
}

/** What a preview does with a content type: text (first bytes), an image (whole, when small enough), or nothing. */
export function previewKind(contentType: string | null): 'text' | 'image' | 'none' {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (/^image\/(png|jpeg|gif|webp|svg\+xml)$/.test(type)) return 'image';
  if (type.startsWith('text/') || /^application\/(json|yaml|x-yaml|javascript|xml)$/.test(type)) return 'text';
  return 'none';
}

/** Bytes of a text file a preview reads (a Range request); the rest is for Download. @unit bytes */
export const PREVIEW_TEXT_BYTES = 256 * 1024;
/** Largest image a preview loads. @unit bytes */
export const PREVIEW_IMAGE_BYTES = 16 * 1024 * 1024;

/** The planes a card says its door serves (the capsule extension's `planes`), [] when it names none. */
export function cardPlanes(card: AgentCard | null): string[] {
  const planes = card?.capabilities.extensions.find((e) => e.uri === CAPSULE_EXTENSION_URI)?.params.planes;
  return Array.isArray(planes) ? planes.filter((p): p is string => typeof p === 'string') : [];
}

/** A size in bytes as an operator reads it: `512 B`, `2.0 KiB`, `1.0 GiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
