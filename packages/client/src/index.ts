// The public surface of @murmur/client, listed name by name. Everything under internal/ is private.
export { type CallOptions, MurmurClient, type MurmurClientOptions, type ReplyOptions, type RetryOptions, type SendTextOptions } from './client.js';
export {
  A2AError,
  CompletionMisaddressedError,
  CompletionNotAwaitedError,
  ConnectionError,
  ContentTypeNotSupportedError,
  type ErrorOrigin,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  HttpRefusalError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  InvalidResponseError,
  type InvalidResponseReason,
  isA2AError,
  isConnectionError,
  isHttpRefusalError,
  isInvalidResponseError,
  isMurmurError,
  isStreamError,
  MethodNotFoundError,
  MurmurError,
  ParseError,
  PushNotificationNotSupportedError,
  StreamError,
  type StreamErrorReason,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from './errors.js';
export type {
  ArtifactEvent,
  ConnectionEvent,
  ConnectionReason,
  ConnectionState,
  FrameEvent,
  MessageStreamEvent,
  MurmurStreamEvent,
  StatusEvent,
  StreamDataEvent,
  TaskEvent,
} from './events.js';
export { applyStreamEvent } from './apply-event.js';
export { ERROR_KINDS, type ErrorKind, errorKind } from './error-kind.js';
export { newMessageId, type TextMessageOptions, textMessage } from './messages.js';
export { MurmurStream, type ReconnectOptions, type StreamMethod, type StreamOptions } from './stream.js';
export type { FetchLike, SseTransportName } from './internal/sse-types.js';
export type { HttpRefusalBody, HttpRefusalCode } from '@murmur/protocol';
