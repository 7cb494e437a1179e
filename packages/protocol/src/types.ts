/**
 * A2A v1.0 ProtoJSON shapes (a2a.proto v1.0.1, package lf.a2a.v1) as the door writes and reads them:
 * camelCase members, enum values by name.
 */
import type { TaskState } from './task-states.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type Role = 'ROLE_USER' | 'ROLE_AGENT';

/** A Part sets exactly one of text, raw, url and data. */
export interface Part {
  text?: string;
  raw?: string;
  url?: string;
  data?: JsonValue;
  mediaType?: string;
  filename?: string;
  metadata?: JsonObject;
}

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** RFC 3339 UTC with milliseconds and a Z. */
  timestamp: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  metadata?: JsonObject;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** Exactly one member is set. */
export type StreamResponse = { task: Task } | { message: Message } | { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent };

export type SendMessageResponse = { task: Task } | { message: Message };

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: JsonObject | null;
  historyLength?: number;
  returnImmediately?: boolean | null;
}

export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration | null;
  metadata?: JsonObject;
}

export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState | 'TASK_STATE_UNSPECIFIED';
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string | null;
  includeArtifacts?: boolean;
}

export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** murmur.StopSession's result (seed 000, "murmur.StopSession"). */
export interface StopSessionResult {
  session_id: string;
  canceled: string[];
  residue: ResidueItem[];
}

export type ResidueItem = DetachedShellResidue | DelegationResidue;

export interface DetachedShellResidue {
  kind: 'detached_shell';
  work_id: string;
  binary: string;
  command: string;
  started_at_ms: number;
}

export interface DelegationResidue {
  kind: 'delegation';
  delegation_id: string;
  capsule: string;
  version: string;
  child_session_id: string;
  child_workdir: string;
}

/** metadata.murmur on a terminal task (seed 000, "Task metadata"). */
export interface MurmurTaskMetadata {
  noAnswer?: true;
  noAnswerBelow?: { member: string; status: string }[];
  runningCommands?: { workId: string; binary: string; command: string; runningMs: number }[];
}

export interface AgentInterface {
  url: string;
  protocolBinding: 'JSONRPC';
  protocolVersion: string;
  tenant?: string;
}

export interface AgentExtension {
  uri: string;
  description: string;
  required: boolean;
  params: JsonObject;
}

export interface AgentCapabilities {
  streaming: boolean;
  pushNotifications: boolean;
  extendedAgentCard: boolean;
  extensions: AgentExtension[];
}

export interface SecurityRequirement {
  schemes: Record<string, { list: string[] }>;
}

export interface SecurityScheme {
  httpAuthSecurityScheme: { scheme: string; description?: string; bearerFormat?: string };
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  securityRequirements?: SecurityRequirement[];
}

export interface AgentCard {
  name: string;
  description: string;
  version: string;
  supportedInterfaces: AgentInterface[];
  capabilities: AgentCapabilities;
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
}

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
}

export interface ErrorInfo {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: ErrorInfo[];
}

interface JsonRpcSuccess<T = unknown> {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result: T;
}

interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse<T = unknown> = JsonRpcSuccess<T> | JsonRpcFailure;
