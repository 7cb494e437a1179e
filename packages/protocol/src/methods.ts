/** Every JSON-RPC method name the door knows, A2A's in the order of the proto's A2AService, then murmur's. */
export const METHOD = {
  SendMessage: 'SendMessage',
  SendStreamingMessage: 'SendStreamingMessage',
  GetTask: 'GetTask',
  ListTasks: 'ListTasks',
  CancelTask: 'CancelTask',
  SubscribeToTask: 'SubscribeToTask',
  CreateTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigs',
  GetExtendedAgentCard: 'GetExtendedAgentCard',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
  WatchSession: 'murmur.WatchSession',
  StopSession: 'murmur.StopSession',
} as const;

export type MethodName = (typeof METHOD)[keyof typeof METHOD];

/** The four push config methods: answered -32003 at step 10, never listed. */
export const PUSH_CONFIG_METHODS: readonly string[] = [
  METHOD.CreateTaskPushNotificationConfig,
  METHOD.GetTaskPushNotificationConfig,
  METHOD.ListTaskPushNotificationConfigs,
  METHOD.DeleteTaskPushNotificationConfig,
];

/** The order the door extension lists its methods in (seed 000, "Door extension"). */
export const DOOR_METHOD_ORDER: readonly MethodName[] = [
  METHOD.SendMessage,
  METHOD.SendStreamingMessage,
  METHOD.WatchSession,
  METHOD.GetTask,
  METHOD.ListTasks,
  METHOD.CancelTask,
  METHOD.SubscribeToTask,
  METHOD.StopSession,
  METHOD.GetExtendedAgentCard,
];

/** Scopes a credential may list: every door method, plus the operator plane (seed 000, "Tokens"). */
export const SCOPES: readonly string[] = [
  METHOD.SendMessage,
  METHOD.SendStreamingMessage,
  METHOD.WatchSession,
  METHOD.GetTask,
  METHOD.ListTasks,
  METHOD.CancelTask,
  METHOD.SubscribeToTask,
  METHOD.StopSession,
  'resources/files',
];

/** A2A 0.3 and pre-v1.0 method names: answered -32601, never aliased. */
export const RETIRED_METHOD_NAMES: readonly string[] = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'agent/getAuthenticatedExtendedCard',
  'stream/watch',
  'session/stop',
];
