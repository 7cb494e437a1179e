import type { JsonObject, JsonRpcErrorObject, JsonRpcId } from '@murmur/protocol';
import type { Caller } from '../tasks/caller.js';

/** One JSON-RPC request that passed steps 2–13, as a method handler receives it. */
export interface RpcCall {
  id: JsonRpcId;
  method: string;
  params: JsonObject;
  caller: Caller;
  headers: Record<string, string | string[] | undefined>;
}

/** What a method answers: a result, or a JSON-RPC error; `extensions` are the URIs the answer names in A2A-Extensions. */
export type RpcAnswer = { result: unknown; extensions?: string[] } | { error: JsonRpcErrorObject };

export type MethodHandler = (call: RpcCall) => Promise<RpcAnswer>;
