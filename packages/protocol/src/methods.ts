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

/**
 * The door's methods, in the order the door extension lists them (seed 000, "Door extension"): the one table the card's
 * listing, the scopes and each method's scope are read from.
 */
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

/** The scope a method needs (seed 000, "Tokens"): its own name, except GetExtendedAgentCard, which every valid token reaches. */
export function scopeOf(method: string): string | null {
  return method === METHOD.GetExtendedAgentCard ? null : method;
}

/** Scopes a credential may list: every door method that needs one, in the table's order, then the operator plane and the record plane. */
export const SCOPES: readonly string[] = [...DOOR_METHOD_ORDER.flatMap((method) => scopeOf(method) ?? []), 'resources/files', 'resources/records'];

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
