/**
 * The door's error table (seed 000, "Errors" and "Completion errors"): one row per error, shared by the door,
 * which builds envelopes from it, and the client, which maps codes back to names.
 */
import type { TaskState } from './task-states.js';
import type { ErrorInfo, JsonRpcErrorObject } from './types.js';
import { A2A_ERROR_DOMAIN, ERROR_INFO_TYPE, MURMUR_ERROR_DOMAIN } from './uris.js';

interface ErrorRow {
  readonly code: number;
  /** The ErrorInfo reason; null for the standard JSON-RPC errors, which carry no data. */
  readonly reason: string | null;
  readonly domain: string | null;
  readonly defaultMessage: string;
  /** Whether the same request may succeed when sent again unchanged. */
  readonly retryable: boolean;
}

export const ERRORS = {
  ParseError: { code: -32700, reason: null, domain: null, defaultMessage: 'Invalid JSON payload', retryable: false },
  InvalidRequest: { code: -32600, reason: null, domain: null, defaultMessage: 'Request payload validation error', retryable: false },
  MethodNotFound: { code: -32601, reason: null, domain: null, defaultMessage: 'Method not found', retryable: false },
  InvalidParams: { code: -32602, reason: null, domain: null, defaultMessage: 'Invalid params', retryable: false },
  InternalError: { code: -32603, reason: null, domain: null, defaultMessage: 'Internal error', retryable: true },
  TaskNotFound: { code: -32001, reason: 'TASK_NOT_FOUND', domain: A2A_ERROR_DOMAIN, defaultMessage: 'Task not found', retryable: false },
  TaskNotCancelable: { code: -32002, reason: 'TASK_NOT_CANCELABLE', domain: A2A_ERROR_DOMAIN, defaultMessage: 'Task cannot be canceled', retryable: false },
  PushNotificationNotSupported: {
    code: -32003,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    domain: A2A_ERROR_DOMAIN,
    defaultMessage: 'push notifications are not supported by this agent',
    retryable: false,
  },
  UnsupportedOperation: {
    code: -32004,
    reason: 'UNSUPPORTED_OPERATION',
    domain: A2A_ERROR_DOMAIN,
    defaultMessage: 'This operation is not supported',
    retryable: false,
  },
  ContentTypeNotSupported: {
    code: -32005,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    domain: A2A_ERROR_DOMAIN,
    defaultMessage: 'Incompatible content types',
    retryable: false,
  },
  InvalidAgentResponse: {
    code: -32006,
    reason: 'INVALID_AGENT_RESPONSE',
    domain: A2A_ERROR_DOMAIN,
    defaultMessage: 'Invalid agent response',
    retryable: false,
  },
  ExtendedAgentCardNotConfigured: {
    code: -32007,
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    domain: A2A_ERROR_DOMAIN,
    defaultMessage: 'Extended agent card is not configured',
    retryable: false,
  },
  ExtensionSupportRequired: {
    code: -32008,
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    domain: A2A_ERROR_DOMAIN,
    defaultMessage: 'Extension support required',
    retryable: false,
  },
  VersionNotSupported: { code: -32009, reason: 'VERSION_NOT_SUPPORTED', domain: A2A_ERROR_DOMAIN, defaultMessage: 'Version not supported', retryable: false },
  CompletionMisaddressed: {
    code: -31001,
    reason: 'COMPLETION_MISADDRESSED',
    domain: MURMUR_ERROR_DOMAIN,
    defaultMessage: 'completion is addressed to another session',
    retryable: false,
  },
  CompletionNotAwaited: {
    code: -31002,
    reason: 'COMPLETION_NOT_AWAITED',
    domain: MURMUR_ERROR_DOMAIN,
    defaultMessage: 'no task in this session is waiting for this delegation',
    retryable: false,
  },
} as const satisfies Record<string, ErrorRow>;

export type ErrorName = keyof typeof ERRORS;

const NAME_BY_CODE: ReadonlyMap<number, ErrorName> = new Map((Object.keys(ERRORS) as ErrorName[]).map((name) => [ERRORS[name].code, name]));

/** The table row's name for a code, or undefined for a code the table does not hold. */
export function errorNameForCode(code: number): ErrorName | undefined {
  return NAME_BY_CODE.get(code);
}

export function isRetryableCode(code: number): boolean {
  const name = NAME_BY_CODE.get(code);
  return name ? ERRORS[name].retryable : false;
}

/** Builds the error object of a JSON-RPC response. A2A and murmur errors carry one ErrorInfo; standard ones none. */
export function rpcError(name: ErrorName, message?: string, metadata: Record<string, string> = {}): JsonRpcErrorObject {
  const row: ErrorRow = ERRORS[name];
  const error: JsonRpcErrorObject = { code: row.code, message: message ?? row.defaultMessage };
  if (row.reason !== null && row.domain !== null) {
    const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason: row.reason, domain: row.domain, metadata };
    error.data = [info];
  }
  return error;
}

// Builders for the errors whose message and metadata the seed fixes.

export const invalidParams = (message: string): JsonRpcErrorObject => rpcError('InvalidParams', message);

export const taskNotFound = (taskId: string): JsonRpcErrorObject => rpcError('TaskNotFound', 'Task not found', { taskId });

export const taskNotCancelable = (taskId: string, state: TaskState): JsonRpcErrorObject =>
  rpcError('TaskNotCancelable', `Task cannot be canceled: it is already ${state}`, { taskId, state });

export const pushNotSupported = (): JsonRpcErrorObject => rpcError('PushNotificationNotSupported');

/** -32004 with {} metadata: a public door's GetExtendedAgentCard, or streaming on a door that starts no task. */
export const unsupportedOperation = (message: string): JsonRpcErrorObject => rpcError('UnsupportedOperation', message);

/** -32004 naming a task and its state: a message continuing a task not waiting for input, or a subscription to an ended task. */
export const unsupportedForTask = (message: string, taskId: string, state: TaskState): JsonRpcErrorObject =>
  rpcError('UnsupportedOperation', message, { taskId, state });

export const contentTypeNotSupported = (message: string, partIndex: number, mediaType?: string): JsonRpcErrorObject =>
  rpcError('ContentTypeNotSupported', message, mediaType === undefined ? { partIndex: String(partIndex) } : { partIndex: String(partIndex), mediaType });

export const versionNotSupported = (requestedVersion: string): JsonRpcErrorObject =>
  rpcError('VersionNotSupported', `A2A version '${requestedVersion}' is not supported; this agent speaks 1.0`, {
    requestedVersion,
    supportedVersions: '1.0',
  });

export const internalError = (failure: string): JsonRpcErrorObject => rpcError('InternalError', `Internal error: ${failure}`);
