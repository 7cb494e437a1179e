/**
 * What went wrong with one attempt of a provider call, in the words the task's failure uses (docs/drivers.md,
 * "Failures"). The kind decides retrying (retry-policy.ts); the message never holds the key.
 */
export type FailureKind =
  /** An HTTP answer other than 2xx. */
  | 'http'
  /** No connection, or it broke before the answer's headers. */
  | 'connect'
  /** No byte for idle_timeout_secs. */
  | 'stall'
  /** The body ended before the wire's end marker. */
  | 'closed'
  /** An event that is not JSON or not the wire's shape. */
  | 'malformed'
  /** The provider reported an error inside the stream. */
  | 'stream-error'
  /** A tool call whose arguments are not a JSON object. */
  | 'arguments';

export class ProviderFailure extends Error {
  override readonly name = 'ProviderFailure';

  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details: {
      status?: number;
      /** The answer's headers, for Retry-After and x-should-retry. */
      headers?: Headers;
      /** The provider's own error type (Anthropic `overloaded_error`, OpenAI `server_error`). */
      errorType?: string;
    } = {},
  ) {
    super(message);
  }

  /** The failure as the task reports it after `attempts` attempts. */
  describe(attempts: number): string {
    if (attempts <= 1) return this.message;
    if (this.kind === 'http') return this.message.replace(/^HTTP (\d+)/, `HTTP $1 after ${attempts} attempts`);
    return `${this.message} (after ${attempts} attempts)`;
  }
}

/** The provider's own words (its error message and type, a refusal, a tool call's id and name) are cut at this. */
const PROVIDER_TEXT_LIMIT = 500;
/** A failure's whole text (`<what>` in `driver invocation failed: <choice>: <what>`) is cut at this. */
export const FAILURE_TEXT_LIMIT = 1_000;

/**
 * The provider's own error message from an error body (OpenAI `{"error": {"message"}}`, Anthropic
 * `{"type": "error", "error": {"type", "message"}}`, or plain text), cut at 500 characters, the key replaced.
 */
export function providerMessage(body: string, key: string | null): { message: string; errorType?: string } {
  let message = body.trim();
  let errorType: string | undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') message = error;
    else if (error && typeof error.message === 'string') {
      message = error.message;
      if (typeof error.type === 'string') errorType = error.type;
    } else if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON: the text as it came.
  }
  return { message: redact(message || '(no message)', key), ...(errorType ? { errorType } : {}) };
}

/** Cuts a provider's text to size and replaces every occurrence of the key (some providers quote a bad key back). */
export function redact(text: string, key: string | null): string {
  return cut(key ? text.split(key).join('[redacted]') : text, PROVIDER_TEXT_LIMIT);
}

/** The text, or its first `limit` characters and `…`. */
export function cut(text: string, limit = PROVIDER_TEXT_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
