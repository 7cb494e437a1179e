import path from 'node:path';

/** Content types by extension (lower case), never sniffed from the bytes (docs/planes.md, "Downloads"). */
const TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/plain',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/vnd.microsoft.icon',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tgz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

/** Textual types carry a charset: the plane serves text as UTF-8. */
const TEXTUAL = /^text\/|^application\/(json|jsonl|xml|yaml)$|^image\/svg\+xml$/;

/** The content-type of a file named `name`: by its extension, application/octet-stream when unknown. */
export function contentTypeFor(name: string): string {
  const type = TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
  return TEXTUAL.test(type) ? `${type}; charset=utf-8` : type;
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 §4.3, RFC 8187 §3.2):
 * always an attachment, so a browser never renders HTML or SVG from the door's origin. In the fallback every byte
 * outside printable ASCII, and `"` and `\`, becomes `_`.
 */
export function contentDispositionFor(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 8187 attr-char: ALPHA / DIGIT / "!#$&+-.^_`|~"; encodeURIComponent leaves '()*' and "'" too, which must go.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
