/**
 * What Fastify may route. Its router answers some request targets before any hook runs: the asterisk form (`POST *`,
 * RFC 9112 §3.2.4) falls to the framework's own 404, a malformed percent-escape to its 400 FST_ERR_BAD_URL. Seed 000
 * puts the token first on every request, so such a target is rewritten (Fastify's `rewriteUrl`) to a path that only
 * the door's 404 answers, and reaches it through the gate like any other.
 */
const UNROUTABLE_PATH = '/.murmur/unroutable-request-target';

export function routableUrl(url: string | undefined): string {
  if (url === '/') return url;
  if (url === undefined || !url.startsWith('/')) return UNROUTABLE_PATH;
  try {
    decodeURIComponent(url.split('?')[0]);
    return url;
  } catch {
    return UNROUTABLE_PATH;
  }
}
