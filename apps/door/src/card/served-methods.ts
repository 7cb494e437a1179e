import { METHOD, type MethodName } from '@murmur/protocol';
import type { Manifest } from '../manifest/manifest.schema.js';

/** The methods POST / serves, which the card's door extension lists (seed 000, "Door extension"). */
export function servedMethods(manifest: Manifest): MethodName[] {
  const startsTasks = manifest.lifecycle.task_acceptance !== 'none';
  const methods: MethodName[] = [];
  if (startsTasks) methods.push(METHOD.SendMessage, METHOD.SendStreamingMessage);
  methods.push(METHOD.WatchSession, METHOD.GetTask, METHOD.ListTasks, METHOD.CancelTask);
  if (startsTasks) methods.push(METHOD.SubscribeToTask);
  methods.push(METHOD.StopSession);
  if (manifest.network.authentication) methods.push(METHOD.GetExtendedAgentCard);
  return methods;
}
