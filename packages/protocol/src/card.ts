/** The agent card murmur serves, built from what the door serves (seed 000, "Agent Card"). */
import { DOOR_METHOD_ORDER, METHOD, type MethodName } from './methods.js';
import type { AgentCard, AgentExtension, AgentSkill, SecurityRequirement } from './types.js';
import { A2A_VERSION, CAPSULE_EXTENSION_URI, DOOR_EXTENSION_URI, STREAM_EXTENSION_URI } from './uris.js';

/** The murmur frames a transport: http capsule's stream can send, in card order. */
export const STREAM_FRAMES = [
  'text',
  'thinking',
  'tool-call-started',
  'tool-call-progress',
  'artifact',
  'gap',
  'lagged',
  'connection-ack',
  'capsule-closed',
] as const;

/** A transport: process capsule's frames: the same, with quota and suggested-prompt after artifact (only a harness reports them). */
export const PROCESS_STREAM_FRAMES = [
  'text',
  'thinking',
  'tool-call-started',
  'tool-call-progress',
  'artifact',
  'quota',
  'suggested-prompt',
  'gap',
  'lagged',
  'connection-ack',
  'capsule-closed',
] as const;

/** The HTTP planes, in the order the capsule extension lists them (seed 000, "Planes"). */
export const PLANE_ORDER = ['files', 'peer_files'] as const;

export const DOOR_EXTENSION_DESCRIPTION =
  "Every JSON-RPC method this door answers, A2A methods and murmur's own alike, the murmur ones named murmur.<Method>; whether it accepts tasks from peer capsules; and the forgetSession field a message's metadata may carry under this URI.";
export const CAPSULE_EXTENSION_DESCRIPTION =
  'The session answering this address and what the capsule may do. Served only to authenticated callers once the door authenticates.';
export const STREAM_EXTENSION_DESCRIPTION =
  "The murmur frames this capsule writes in addition to the A2A v1.0 events: sent on SendStreamingMessage and SubscribeToTask when the request's A2A-Extensions header names this URI, and always on murmur.WatchSession. Each is carried in a StreamResponse under metadata keyed by this URI.";
export const BEARER_SCHEME_DESCRIPTION = "A token this capsule's runtime mints at launch and accepts until the session ends.";

export const TASK_SKILL: AgentSkill = {
  id: 'task',
  name: 'Run a task',
  description: 'Runs one task given as a text message and reports its outcome.',
  tags: ['task'],
};

export const DEFAULT_IO_MODES = ['text/plain', 'application/json'];

export interface CardInput {
  name: string;
  version: string;
  /** http://<host:port> */
  url: string;
  sessionId: string;
  /**
   * The JSON-RPC methods the door serves, in any order. The card derives three listings itself (seed 000,
   * "Door extension"): GetExtendedAgentCard is listed exactly when `authenticated` (a public door answers it
   * -32004 and does not list it), and SendStreamingMessage and SubscribeToTask only alongside SendMessage
   * (under task_acceptance: none they are answered -32004 and not listed). Push config methods are never listed.
   */
  methods: readonly MethodName[];
  authenticated: boolean;
  peerTasks: boolean;
  tools: string[];
  shell: boolean;
  network: boolean;
  /** The declared planes; listed in PLANE_ORDER, any other name after them. */
  planes: string[];
  /** inference.transport; absent reads as http. A process capsule's stream also sends quota and suggested-prompt. */
  transport?: 'http' | 'process';
  /** Which card: the public one, or the extended card of an authenticated door. */
  variant: 'public' | 'extended';
}

/** Methods in the door extension's documented order. */
export function orderMethods(methods: readonly MethodName[]): MethodName[] {
  return DOOR_METHOD_ORDER.filter((m) => methods.includes(m));
}

/** The methods the door extension lists, derived as CardInput.methods describes. */
function listedMethods(input: CardInput): MethodName[] {
  const startsTasks = input.methods.includes(METHOD.SendMessage);
  const served = input.methods.filter((m) => {
    if (m === METHOD.GetExtendedAgentCard) return false;
    if (m === METHOD.SendStreamingMessage || m === METHOD.SubscribeToTask) return startsTasks;
    return true;
  });
  return orderMethods(input.authenticated ? [...served, METHOD.GetExtendedAgentCard] : served);
}

function orderPlanes(planes: readonly string[]): string[] {
  const known: readonly string[] = PLANE_ORDER;
  return [...known.filter((p) => planes.includes(p)), ...planes.filter((p) => !known.includes(p))];
}

/** The card's description of a capsule (seed 000): also its agent's `gen_ai.agent.description` in the door's telemetry. */
export function capsuleDescription(name: string, version: string): string {
  return `Murmur capsule ${name} ${version}`;
}

export function buildAgentCard(input: CardInput): AgentCard {
  const methods = listedMethods(input);
  const door: AgentExtension = {
    uri: DOOR_EXTENSION_URI,
    description: DOOR_EXTENSION_DESCRIPTION,
    required: false,
    params: { methods, peerTasks: input.peerTasks },
  };
  const capsule: AgentExtension = {
    uri: CAPSULE_EXTENSION_URI,
    description: CAPSULE_EXTENSION_DESCRIPTION,
    required: false,
    params: { sessionId: input.sessionId, tools: input.tools, shell: input.shell, network: input.network, planes: orderPlanes(input.planes) },
  };
  const stream: AgentExtension = {
    uri: STREAM_EXTENSION_URI,
    description: STREAM_EXTENSION_DESCRIPTION,
    required: false,
    params: { frames: input.transport === 'process' ? [...PROCESS_STREAM_FRAMES] : [...STREAM_FRAMES] },
  };
  const withCapsule = !input.authenticated || input.variant === 'extended';
  const streaming = methods.includes(METHOD.SendStreamingMessage);
  const taskStarting = methods.filter((m) => m === METHOD.SendMessage || m === METHOD.SendStreamingMessage);
  const skill: AgentSkill = input.authenticated
    ? { ...TASK_SKILL, securityRequirements: taskStarting.map((scope) => ({ schemes: { bearer: { list: [scope] } } })) }
    : { ...TASK_SKILL };
  const anyToken: SecurityRequirement[] = [{ schemes: { bearer: { list: [] } } }];
  return {
    name: input.name,
    description: capsuleDescription(input.name, input.version),
    version: input.version,
    supportedInterfaces: [{ url: input.url, protocolBinding: 'JSONRPC', protocolVersion: A2A_VERSION }],
    capabilities: {
      streaming,
      pushNotifications: false,
      extendedAgentCard: input.authenticated,
      extensions: withCapsule ? [door, capsule, stream] : [door, stream],
    },
    securitySchemes: input.authenticated ? { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: BEARER_SCHEME_DESCRIPTION } } } : {},
    securityRequirements: input.authenticated ? anyToken : [],
    defaultInputModes: [...DEFAULT_IO_MODES],
    defaultOutputModes: [...DEFAULT_IO_MODES],
    skills: methods.includes(METHOD.SendMessage) ? [skill] : [],
  };
}
