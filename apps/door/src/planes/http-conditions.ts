import type { Stats } from 'node:fs';

/** A strong validator of a file's current version: size, mtime (ms) and inode, in hex (docs/planes.md). */
export function etagOf(stats: Stats): string {
  return `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}-${stats.ino.toString(16)}"`;
}

/** The mtime as an HTTP date (RFC 9110 §5.6.7), whole seconds. */
export function lastModifiedOf(stats: Stats): string {
  return stats.mtime.toUTCString();
}

/** Strips W/ for the weak comparison If-None-Match uses (RFC 9110 §8.8.3.2). */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/**
 * Whether a GET or HEAD is answered 304 (RFC 9110 §13.1.2, §13.1.3, §13.2.2): If-None-Match when present (a list,
 * weak comparison, or `*`); only when it is absent, If-Modified-Since at or after the mtime in whole seconds.
 */
export function notModified(headers: { 'if-none-match'?: string; 'if-modified-since'?: string }, stats: Stats): boolean {
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) {
    if (noneMatch.trim() === '*') return true;
    const current = opaque(etagOf(stats));
    return noneMatch.split(',').some((tag) => opaque(tag.trim()) === current);
  }
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && Math.floor(stats.mtimeMs / 1000) <= Math.floor(at / 1000);
}

/** A byte range to serve: first and last byte, inclusive. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * What a Range header asks of a file of `size` bytes (RFC 9110 §14.1.2, §14.2): one range of `bytes=` (`a-b`, `a-`,
 * `-n`) → that range, its end cut to the file's; one that starts at or past the end, or any range of an empty file →
 * 'unsatisfiable'; several ranges, other units or syntax that does not parse → null (the whole file, as §14.2 lets a
 * server ignore Range). An If-Range that is not the current ETag, nor exactly the Last-Modified date, also → null.
 */
export function requestedRange(headers: { range?: string; 'if-range'?: string }, stats: Stats): ByteRange | 'unsatisfiable' | null {
  const header = headers.range;
  if (header === undefined) return null;
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && ifRange.trim() !== etagOf(stats) && ifRange.trim() !== lastModifiedOf(stats)) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null || (match[1] === '' && match[2] === '')) return null;
  const size = stats.size;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (!Number.isSafeInteger(suffix)) return null;
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return null;
  if (match[2] !== '' && end < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
