/**
 * Bytes of request bodies that blocking SendMessage requests may hold while their tasks run. A held request keeps
 * its body and parsed message alive until it is answered, so past this budget a new one is answered at once with
 * the task as it stands, as with `returnImmediately` (docs/decisions.md).
 * @default 32 MiB
 * @unit bytes (the request's Content-Length, at least HELD_REQUEST_MIN_BYTES)
 */
export const HELD_REQUEST_BYTES = 32 * 1024 * 1024;

/** What a held request costs at least, whatever its body: its socket, request and response objects. */
export const HELD_REQUEST_MIN_BYTES = 16 * 1024;

/** The session's held SendMessage requests, counted by bytes. */
export class HeldRequests {
  private bytes = 0;

  constructor(private readonly budgetBytes = HELD_REQUEST_BYTES) {}

  /** Reserves room for one held request; returns its release, or null when the budget has no room for it. */
  take(requestBytes: number): (() => void) | null {
    const cost = Math.max(HELD_REQUEST_MIN_BYTES, requestBytes);
    if (this.bytes + cost > this.budgetBytes) return null;
    this.bytes += cost;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.bytes -= cost;
    };
  }

  get heldBytes(): number {
    return this.bytes;
  }
}

/** A request's size as its Content-Length says, else the message text's (a chunked body names no length). */
export function requestBytes(headers: Record<string, string | string[] | undefined>, textLength: number): number {
  const declared = Number(headers['content-length']);
  return Number.isFinite(declared) && declared > 0 ? declared : textLength * 2;
}
