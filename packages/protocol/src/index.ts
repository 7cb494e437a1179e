export { ARTIFACT_ID, type ArtifactId } from './artifact-ids.js';
export { buildAgentCard, capsuleDescription, PROCESS_STREAM_FRAMES } from './card.js';
export {
  type ConsoleAddedDoor,
  CONSOLE_DOOR_PROXY_PREFIX,
  CONSOLE_DOORS_PATH,
  CONSOLE_SESSIONS_PATH,
  type ConsoleDoorsResponse,
  type ConsoleSession,
  type ConsoleSessionsResponse,
  type RegisteredSession,
  UNREACHABLE_BACKOFF_MS,
} from './console-api.js';
export {
  CONSOLE_FORMATIONS_PATH,
  type ConsoleFormation,
  type ConsoleFormationDelegation,
  type ConsoleFormationMember,
  type ConsoleFormationsResponse,
  type ConsoleMemberCall,
} from './console-formations.js';
export {
  CONSOLE_ROLLUP_SUFFIX,
  type ConsoleRollup,
  type Percentiles,
  ROLLUP_BUCKET_WIDTHS_MS,
  ROLLUP_BUCKETS_MAX,
  ROLLUP_OTHER_TOOLS,
  ROLLUP_SESSIONS_MAX,
  ROLLUP_TOOL_NAMES_MAX,
  ROLLUP_TOOLS_SHOWN,
  type RollupFilters,
  type RollupTool,
  TIME_SPLIT_PARTS,
  type TimeSplit,
  type TokenCounts,
  type TurnTokens,
  taskTimeSplit,
  turnTokens,
} from './console-rollups.js';
export {
  type ConsoleDelegationStatus,
  type ConsoleRecordSession,
  type ConsoleRecordSessionsResponse,
  type ConsoleTaskRecordPage,
  type ConsoleTaskSummariesPage,
  type ConsoleTaskSummariesResponse,
  firstLine,
  type MemberCallStatus,
  memberTaskIds,
  PLAN_STEP_STATUSES,
  type PlanStepStatus,
  RECORD_IDS_MAX,
  RECORD_MEMBER_DEPTH,
  RECORD_MEMBER_ENTRIES_MAX,
  RECORD_MEMBERS_MAX,
  RECORD_PAGE_DEFAULT,
  RECORD_PAGE_MAX,
  type TaskRecordEntry,
  type TaskRecordMember,
  type TaskRecordMemberCall,
  type TaskRecordPlanStep,
  type TaskRecordSummary,
} from './console-records.js';
export {
  CONSOLE_RUNNING_DOORS_PREFIX,
  CONSOLE_RUNNING_PATH,
  CONSOLE_RUNNING_STREAM_PATH,
  type ConsoleRunningSnapshot,
  RUNNING_DOORS_MAX,
  RUNNING_PUSH_MS,
  RUNNING_TASKS_PER_DOOR_MAX,
  RUNNING_TASKS_SHOWN,
  RUNNING_TEXT_MAX,
  type RunningActivity,
  type RunningDoor,
  type RunningDoorState,
  type RunningTask,
} from './console-running.js';
export { renderFence } from './data-fence.js';
export {
  CONSOLE_PEER_HANDLES_SUFFIX,
  type ConsolePeerHandle,
  type ConsolePeerHandlesResponse,
  FILES_PLANE_PATH,
  type FilesListing,
  type FilesListingEntry,
  type PeerHandleState,
} from './files-plane.js';
export {
  ERRORS,
  type ErrorName,
  errorNameForCode,
  internalError,
  invalidParams,
  isRetryableCode,
  pushNotSupported,
  rpcError,
  taskNotCancelable,
  taskNotFound,
  unsupportedForTask,
  unsupportedOperation,
  versionNotSupported,
} from './errors.js';
export { readRequestHeaders, type RequestHeaderLines, taskOrigins } from './http-headers.js';
export {
  badAddressRefusal,
  bearerChallenge,
  consoleNotFoundRefusal,
  doorNotFoundRefusal,
  doorUnreachableRefusal,
  encodeRefusalBody,
  fileNotFoundRefusal,
  handleNotFoundRefusal,
  HTTP_REFUSALS,
  type HttpRefusalBody,
  type HttpRefusalCode,
  type InvalidTokenWhy,
  insufficientScopeRefusal,
  invalidTokenRefusal,
  methodNotAllowedRefusal,
  notLoopbackPeerRefusal,
  misdirectedRefusal,
  notLoopbackRefusal,
  type PlaneName,
  peerNotAcceptedRefusal,
  planeNotServedRefusal,
  rangeNotSatisfiableRefusal,
  recordNotFoundRefusal,
  recordQueryRefusal,
  refusalStatus,
  runningDoorNotFoundRefusal,
  unauthenticatedRefusal,
} from './http-refusals.js';
export {
  CONTROL_ALLOW,
  CONTROL_PATH,
  CONTROL_SETTINGS,
  type ControlChange,
  type ControlChangeRequest,
  type ControlSettings,
  type ControlTokenWhy,
  controlChallenge,
  controlInvalidTokenRefusal,
  controlMethodNotAllowedRefusal,
  controlNotFoundRefusal,
  controlRefusedRefusal,
  controlUnauthenticatedRefusal,
  invalidControlRequestRefusal,
  noInferenceRefusal,
  unknownSettingRefusal,
} from './control.js';
export { ID_PREFIX, type IdKind, isId, statusMessageId } from './ids.js';
export type { ImageMediaType } from './images.js';
export { checkTenant, failure, isPlainObject, readEnvelope, readParams, success, successHead } from './jsonrpc.js';
export { type ListTasksQuery, readListTasksParams } from './list-tasks-reader.js';
export { isLoopbackHost, parseHostPort, unbracketHost } from './loopback.js';
export {
  type MessageImage,
  type ReadMessage,
  readMessageParams,
} from './message-reader.js';
export { messageText, partsText } from './message-text.js';
export { METHOD, type MethodName, PUSH_CONFIG_METHODS, SCOPES, scopeOf } from './methods.js';
export { decodePageToken, encodePageToken, type PagePosition, pagePositionText, type SealedPagePosition } from './page-token.js';
export { DEFAULT_HEARTBEAT_MS, encodeSseEvent, extensionsHeaderNames, HEARTBEAT_COMMENT, LAST_EVENT_ID_HEADER, parseLastEventId } from './sse.js';
export { endsTaskStream, taskStreamEndOptions } from './stream-end.js';
export { carrierEvent, frameMessageEvent, type MurmurFrame, type MurmurFrameName, murmurFrameOf, streamEventKind } from './stream-frames.js';
export type { QuotaWindowFrameFields, ToolArtifactFrameFields } from './stream-types.js';
export {
  isSettledState,
  isTerminalState,
  MURMUR_STATE_WORD,
  TASK_STATES,
  type TaskState,
  TERMINAL_STATES,
} from './task-states.js';
export { formatTimestamp, parseTimestampCeilMs } from './timestamps.js';
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
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcId,
  JsonValue,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  MurmurTaskMetadata,
  Part,
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
  TaskStatus,
  TaskStatusUpdateEvent,
} from './types.js';
export {
  A2A_EXTENSIONS_HEADER,
  A2A_VERSION,
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  CAPSULE_EXTENSION_URI,
  AUDIENCE_HEADER,
  COMPLETION_SESSION_HEADER,
  HANDLE_ID_HEADER,
  DELEGATION_ID_HEADER,
  DOOR_EXTENSION_URI,
  ERROR_INFO_TYPE,
  STREAM_EXTENSION_URI,
  TASK_ORIGIN_HEADER,
  TASK_TRUST_HEADER,
} from './uris.js';
export { negotiateVersion } from './version.js';
export {
  CONSOLE_RECORDS_BASE,
  RECORD_CALLS_SUFFIX,
  RECORD_FORMATION_SUFFIX,
  RECORD_PAGE_CHARS_MAX,
  type RecordFormationResponse,
  type RecordMemberCall,
  type RecordMemberCallsResponse,
  RECORDS_PLANE_PATH,
  RECORDS_SCOPE,
} from './records-plane.js';
export { escapeControlCharacters } from './control-chars.js';
export {
  ARTIFACT_CODE,
  ARTIFACT_REFUSAL,
  type ArtifactPlace,
  CONSOLE_ARTIFACTS_SUFFIX,
  type ConsoleArtifactsResponse,
  lockConflict,
  type SessionArtifact,
} from './artifacts.js';
