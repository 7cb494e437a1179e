import { METHOD, type MethodName } from '@murmur/protocol';
import type { Manifest } from '../manifest/manifest.schema.js';

/**
 * The methods POST / serves (answers with something other than -32601), which the card's door extension lists.
 * The streaming methods join this list when the streaming module serves them.
 */
export function servedMethods(manifest: Manifest): MethodName[] {
  const startsTasks = manifest.lifecycle.task_acceptance !== 'none';
  const methods: MethodName[] = [];
  if (startsTasks) methods.push(METHOD.SendMessage);
  methods.push(METHOD.GetTask, METHOD.ListTasks, METHOD.CancelTask, METHOD.StopSession);
  if (manifest.network.authentication) methods.push(METHOD.GetExtendedAgentCard);
  return methods;
}
