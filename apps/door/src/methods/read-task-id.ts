import { invalidParams, type JsonObject, type JsonRpcErrorObject } from '@murmur/protocol';

/** params.id of GetTask, CancelTask and SubscribeToTask: absent or "" answers "<Method> requires an id". */
export function readTaskId(method: string, params: JsonObject): { id: string } | { error: JsonRpcErrorObject } {
  const id = params.id;
  if (id === undefined || id === '' || id === null) return { error: invalidParams(`${method} requires an id`) };
  if (typeof id !== 'string') return { error: invalidParams(`Invalid params: id must be a string, not ${JSON.stringify(id)}`) };
  return { id };
}
