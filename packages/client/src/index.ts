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

// The wire types this package's API names, re-exported so that an integrator imports only @murmur/client
// (@murmur/protocol is installed beside it as a dependency).
export type {
  AgentCapabilities,
  AgentCard,
  AgentExtension,
  AgentInterface,
  AgentSkill,
  Artifact,
  DelegationResidue,
  DetachedShellResidue,
  ErrorInfo,
  ErrorName,
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcId,
  JsonValue,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  MurmurFrame,
  MurmurFrameName,
  MurmurTaskMetadata,
  Part,
  QuotaWindowFrameFields,
  ResidueItem,
  Role,
  SecurityRequirement,
  SecurityScheme,
  SendMessageConfiguration,
  SendMessageRequest,
  SendMessageResponse,
  StopSessionResult,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
  ToolArtifactFrameFields,
} from '@murmur/protocol';
// The few wire rules an integrator reads results with.
export { ARTIFACT_ID, type ArtifactId, isTerminalState, messageText, partsText, TASK_STATES } from '@murmur/protocol';
