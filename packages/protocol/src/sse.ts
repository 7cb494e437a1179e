/**
 * The SSE wire of every door stream (DESIGN "The wire"): an optional `id: N` line and one `data:` line holding a
 * JSON-RPC response; no `event:` lines; lines end with \n; heartbeats are the comment `:heartbeat`.
 */

export const HEARTBEAT_COMMENT = ':heartbeat\n\n';
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** Event ids are unsigned 64-bit integers: decimal text on the wire, bigint in code. */
const MAX_EVENT_ID = 18446744073709551615n;

export function encodeSseEvent(id: bigint | null, data: string): string {
  return id === null ? `data: ${data}\n\n` : `id: ${id}\ndata: ${data}\n\n`;
}

/** A Last-Event-ID header value as an event id, or null when it is not an unsigned 64-bit decimal number. */
export function parseLastEventId(value: string | undefined): bigint | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (!/^\d{1,20}$/.test(text)) return null;
  const id = BigInt(text);
  return id <= MAX_EVENT_ID ? id : null;
}

/** Whether an A2A-Extensions header (one or several lines, comma-separated URIs) names `uri`. */
export function extensionsHeaderNames(lines: readonly string[], uri: string): boolean {
  return lines.some((line) => line.split(',').some((part) => part.trim() === uri));
}
