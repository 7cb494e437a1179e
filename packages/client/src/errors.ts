/**
 * The errors the client throws. Every class carries a brand under `Symbol.for(...)`, so the `is…Error` guards
 * work across bundles and duplicated installs where a bare `instanceof` would not (STYLE 2; a2a-js brands its
 * errors the same way, trpc PR #4848 checks `name`/`code` for the same reason).
 *
 * Codes, reasons and retryability come from the one error table in @murmur/protocol (seed 000, "Errors").
 */
import {
  ERROR_INFO_TYPE,
  type ErrorInfo,
  type ErrorName,
  errorNameForCode,
  type HttpRefusalCode,
  isRetryableCode,
  type JsonRpcErrorObject,
  type JsonRpcId,
} from '@murmur/protocol';

const BRAND: unique symbol = Symbol.for('@murmur/client.error') as never;

type ErrorBrand = 'A2AError' | 'HttpRefusalError' | 'ConnectionError' | 'InvalidResponseError' | 'StreamError';

/** The base of every error this package throws. */
export abstract class MurmurError extends Error {
  /** @internal The brand the `is…Error` guards check, so they work across bundles where `instanceof` does not. */
  readonly [BRAND]: ErrorBrand;
  /** Whether sending the same request again, unchanged, may succeed. */
  abstract readonly retryable: boolean;

  /** @internal Only this package's error classes extend it. */
  protected constructor(kind: ErrorBrand, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this[BRAND] = kind;
  }
}

function brandOf(value: unknown): ErrorBrand | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [BRAND]?: ErrorBrand })[BRAND];
}

export function isMurmurError(value: unknown): value is MurmurError {
  return brandOf(value) !== undefined;
}

/** Where an A2A error came from: the JSON-RPC method and request id it answered. */
export interface ErrorOrigin {
  method?: string;
  requestId?: JsonRpcId | null;
}

/**
 * A JSON-RPC error the door answered: a standard JSON-RPC error (-32700…-32603), an A2A error (-32001…-32009)
 * or a murmur one (-31001, -31002). `errorName` is the protocol table's row (`undefined` for a code the table does
 * not hold); `reason`, `domain` and `metadata` come from the error's google.rpc.ErrorInfo, when it carries one.
 */
export class A2AError<N extends ErrorName | undefined = ErrorName | undefined> extends MurmurError {
  override name = 'A2AError';
  readonly code: number;
  readonly errorName: N;
  /** The ErrorInfo reason, e.g. `TASK_NOT_FOUND`; null for the standard JSON-RPC errors, which carry no data. */
  readonly reason: string | null;
  /** The ErrorInfo domain: `a2a-protocol.org` or `murmur.nexus`; null without ErrorInfo. */
  readonly domain: string | null;
  /** The ErrorInfo metadata (string values, e.g. `taskId`, `state`); {} without ErrorInfo. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The `error.data` exactly as received. */
  readonly data: unknown;
  readonly retryable: boolean;
  readonly method: string | undefined;
  readonly requestId: JsonRpcId | null | undefined;

  constructor(error: JsonRpcErrorObject, origin: ErrorOrigin = {}) {
    super('A2AError', error.message);
    const info = findErrorInfo(error.data);
    this.code = error.code;
    this.errorName = errorNameForCode(error.code) as N;
    this.reason = info?.reason ?? null;
    this.domain = info?.domain ?? null;
    this.metadata = info?.metadata ?? {};
    this.data = error.data;
    this.retryable = isRetryableCode(error.code);
    this.method = origin.method;
    this.requestId = origin.requestId;
  }

  /** The typed subclass for the error's code (A2AError itself for a code the table does not hold). */
  static from(error: JsonRpcErrorObject, origin?: ErrorOrigin): A2AError {
    const name = errorNameForCode(error.code);
    return name === undefined ? new A2AError(error, origin) : new ERROR_CLASSES[name](error, origin);
  }
}

function findErrorInfo(data: unknown): ErrorInfo | undefined {
  if (!Array.isArray(data)) return undefined;
  const info = data.find(
    (item): item is ErrorInfo => typeof item === 'object' && item !== null && (item as { '@type'?: unknown })['@type'] === ERROR_INFO_TYPE,
  );
  if (!info) return undefined;
  const metadata: Record<string, string> = {};
  if (typeof info.metadata === 'object' && info.metadata !== null) {
    for (const [key, value] of Object.entries(info.metadata)) if (typeof value === 'string') metadata[key] = value;
  }
  return {
    '@type': ERROR_INFO_TYPE,
    reason: typeof info.reason === 'string' ? info.reason : '',
    domain: typeof info.domain === 'string' ? info.domain : '',
    metadata,
  };
}

// One subclass per row of the protocol's error table. ERROR_CLASSES below `satisfies` a mapped type over ErrorName,
// so a row added to the table without a class here (or a class for a row that is gone) fails to compile.
export class ParseError extends A2AError<'ParseError'> {
  override name = 'ParseError';
}
export class InvalidRequestError extends A2AError<'InvalidRequest'> {
  override name = 'InvalidRequestError';
}
export class MethodNotFoundError extends A2AError<'MethodNotFound'> {
  override name = 'MethodNotFoundError';
}
export class InvalidParamsError extends A2AError<'InvalidParams'> {
  override name = 'InvalidParamsError';
}
export class InternalError extends A2AError<'InternalError'> {
  override name = 'InternalError';
}
export class TaskNotFoundError extends A2AError<'TaskNotFound'> {
  override name = 'TaskNotFoundError';
}
export class TaskNotCancelableError extends A2AError<'TaskNotCancelable'> {
  override name = 'TaskNotCancelableError';
}
export class PushNotificationNotSupportedError extends A2AError<'PushNotificationNotSupported'> {
  override name = 'PushNotificationNotSupportedError';
}
export class UnsupportedOperationError extends A2AError<'UnsupportedOperation'> {
  override name = 'UnsupportedOperationError';
}
export class ContentTypeNotSupportedError extends A2AError<'ContentTypeNotSupported'> {
  override name = 'ContentTypeNotSupportedError';
}
export class InvalidAgentResponseError extends A2AError<'InvalidAgentResponse'> {
  override name = 'InvalidAgentResponseError';
}
export class ExtendedAgentCardNotConfiguredError extends A2AError<'ExtendedAgentCardNotConfigured'> {
  override name = 'ExtendedAgentCardNotConfiguredError';
}
export class ExtensionSupportRequiredError extends A2AError<'ExtensionSupportRequired'> {
  override name = 'ExtensionSupportRequiredError';
}
export class VersionNotSupportedError extends A2AError<'VersionNotSupported'> {
  override name = 'VersionNotSupportedError';
}
export class CompletionMisaddressedError extends A2AError<'CompletionMisaddressed'> {
  override name = 'CompletionMisaddressedError';
}
export class CompletionNotAwaitedError extends A2AError<'CompletionNotAwaited'> {
  override name = 'CompletionNotAwaitedError';
}

type ErrorClasses = { [K in ErrorName]: new (error: JsonRpcErrorObject, origin?: ErrorOrigin) => A2AError<K> };

const ERROR_CLASSES = {
  ParseError,
  InvalidRequest: InvalidRequestError,
  MethodNotFound: MethodNotFoundError,
  InvalidParams: InvalidParamsError,
  InternalError,
  TaskNotFound: TaskNotFoundError,
  TaskNotCancelable: TaskNotCancelableError,
  PushNotificationNotSupported: PushNotificationNotSupportedError,
  UnsupportedOperation: UnsupportedOperationError,
  ContentTypeNotSupported: ContentTypeNotSupportedError,
  InvalidAgentResponse: InvalidAgentResponseError,
  ExtendedAgentCardNotConfigured: ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequired: ExtensionSupportRequiredError,
  VersionNotSupported: VersionNotSupportedError,
  CompletionMisaddressed: CompletionMisaddressedError,
  CompletionNotAwaited: CompletionNotAwaitedError,
} as const satisfies ErrorClasses;

/**
 * Whether `value` is an A2AError (from any copy of this package); with `name`, whether it is that row of the
 * error table, e.g. `isA2AError(e, 'TaskNotFound')`.
 */
export function isA2AError(value: unknown): value is A2AError;
export function isA2AError<N extends ErrorName>(value: unknown, name: N): value is A2AError<N>;
export function isA2AError(value: unknown, name?: ErrorName): boolean {
  if (brandOf(value) !== 'A2AError') return false;
  return name === undefined || (value as A2AError).errorName === name;
}

/**
 * An HTTP answer that is not a JSON-RPC envelope: the door's 401/403 token, consent and scope refusals and its 404
 * (body `{"error": "<code>", "message": "<sentence>"}`), or any other non-2xx status from the door or a proxy.
 */
export class HttpRefusalError extends MurmurError {
  override name = 'HttpRefusalError';
  readonly status: number;
  /** The `www-authenticate` header, e.g. `Bearer realm="my-agent", error="invalid_token"`; null when absent. */
  readonly wwwAuthenticate: string | null;
  /** The body's `error` code (e.g. `invalid_token`, `insufficient_scope`); null when the body had none. */
  readonly code: HttpRefusalCode | (string & {}) | null;
  /** The `Retry-After` header, when the answer carried one. */
  readonly retryAfter: string | null;
  readonly retryable: boolean;

  constructor(init: { status: number; wwwAuthenticate: string | null; code: string | null; message: string; retryAfter?: string | null }) {
    super('HttpRefusalError', init.message);
    this.status = init.status;
    this.wwwAuthenticate = init.wwwAuthenticate;
    this.code = init.code;
    this.retryAfter = init.retryAfter ?? null;
    // 429 and 503 say "not now"; 408, 500, 502 and 504 may mean the request was never handled (retried only when
    // the method is safe to repeat — see shouldRetry).
    this.retryable = [408, 429, 500, 502, 503, 504].includes(init.status);
  }
}

export function isHttpRefusalError(value: unknown): value is HttpRefusalError {
  return brandOf(value) === 'HttpRefusalError';
}

/** The request never got an HTTP answer: DNS, refused or reset connections, a body cut off mid-way. */
export class ConnectionError extends MurmurError {
  override name = 'ConnectionError';
  readonly retryable = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super('ConnectionError', message, options);
  }
}

export function isConnectionError(value: unknown): value is ConnectionError {
  return brandOf(value) === 'ConnectionError';
}

export type InvalidResponseReason = 'not-json' | 'not-jsonrpc' | 'id-mismatch' | 'unexpected-result' | 'too-large';

/** An answer this client cannot read: not JSON, not a JSON-RPC response, an id that is not the request's, a result of the wrong shape, or a body past `maxResponseSize`. */
export class InvalidResponseError extends MurmurError {
  override name = 'InvalidResponseError';
  readonly reason: InvalidResponseReason;
  readonly status: number | null;
  /** The first 500 characters of the body, to show what came back. */
  readonly bodySnippet: string;
  readonly retryable = false;

  constructor(reason: InvalidResponseReason, message: string, init: { status?: number | null; body?: string; cause?: unknown } = {}) {
    super('InvalidResponseError', message, { cause: init.cause });
    this.reason = reason;
    this.status = init.status ?? null;
    this.bodySnippet = (init.body ?? '').slice(0, 500);
  }
}

export function isInvalidResponseError(value: unknown): value is InvalidResponseError {
  return brandOf(value) === 'InvalidResponseError';
}

export type StreamErrorReason =
  /** The stream ended or failed before its natural end, and reconnecting is off. */
  | 'connection-lost'
  /** No bytes (event or heartbeat) within heartbeatTimeoutMs, and reconnecting is off. */
  | 'heartbeat-timeout'
  /** Reconnecting gave up after maxRetries attempts; `cause` is the last failure. */
  | 'retries-exhausted'
  /** The door refused a reconnect; `cause` is its A2AError or HttpRefusalError. */
  | 'reconnect-refused'
  /** A SendStreamingMessage dropped before its task id arrived, so there is no task to resubscribe to. */
  | 'cannot-resume'
  /** A data line that is not a JSON-RPC response to this request. */
  | 'invalid-event'
  /** The stream object was iterated a second time. */
  | 'already-iterated'
  /** An event larger than the client's `maxEventSize`; the events before it were delivered. Not retried. */
  | 'event-too-large';

/** A stream failed after it was opened (or was misused). Refusals of the opening request throw their own errors. */
export class StreamError extends MurmurError {
  override name = 'StreamError';
  readonly reason: StreamErrorReason;
  readonly method: string;
  /** The last SSE id the stream delivered, to resume from with the `lastEventId` option. */
  readonly lastEventId: string | null;
  readonly retryable: boolean;

  constructor(reason: StreamErrorReason, message: string, init: { method: string; lastEventId?: string | null; cause?: unknown }) {
    super('StreamError', message, { cause: init.cause });
    this.reason = reason;
    this.method = init.method;
    this.lastEventId = init.lastEventId ?? null;
    this.retryable = reason === 'connection-lost' || reason === 'heartbeat-timeout' || reason === 'retries-exhausted';
  }
}

export function isStreamError(value: unknown): value is StreamError {
  return brandOf(value) === 'StreamError';
}
