/** The three extension URIs murmur declares on its agent card (seed 000, "Extensions"). */
export const DOOR_EXTENSION_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';
export const CAPSULE_EXTENSION_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1';
export const STREAM_EXTENSION_URI = 'https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1';

/** The A2A version this door speaks, and the header that names it. */
export const A2A_VERSION = '1.0';
export const A2A_VERSION_HEADER = 'A2A-Version';
export const A2A_EXTENSIONS_HEADER = 'A2A-Extensions';
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Runtime headers murmur's runtimes stamp on requests to each other (seed 000, "Runtime headers"). */
export const TASK_ORIGIN_HEADER = 'x-murmur-task-origin';
export const TASK_TRUST_HEADER = 'x-murmur-task-trust';
export const DELEGATION_ID_HEADER = 'x-murmur-delegation-id';
export const COMPLETION_SESSION_HEADER = 'x-murmur-completion-session';
export const AUDIENCE_HEADER = 'x-murmur-audience';
export const HANDLE_ID_HEADER = 'x-murmur-handle-id';

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
export const MURMUR_ERROR_DOMAIN = 'murmur.nexus';
