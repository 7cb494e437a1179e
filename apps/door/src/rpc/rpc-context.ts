import type { ServerResponse } from 'node:http';
import type { JsonObject, JsonRpcErrorObject, JsonRpcId } from '@murmur/protocol';
import type { Caller } from '../auth/caller.js';

/** One JSON-RPC request that passed steps 2–13, as a method handler receives it. */
export interface RpcCall {
  id: JsonRpcId;
  method: string;
  params: JsonObject;
  caller: Caller;
  headers: Record<string, string | string[] | undefined>;
  /** Raw header lines as [name, value, …], for headers whose repetition matters. */
  rawHeaders: string[];
}

/** Starts writing an event stream on a response whose status and headers are already sent. */
export type StreamStart = (res: ServerResponse) => void;

/**
 * What a method answers: a result, a JSON-RPC error, or an event stream. `extensions` are the URIs the answer names
 * in A2A-Extensions.
 */
export type RpcAnswer = { result: unknown; extensions?: string[] } | { error: JsonRpcErrorObject } | { stream: StreamStart; extensions?: string[] };

export type MethodHandler = (call: RpcCall) => Promise<RpcAnswer>;

/** The values of every line of one header, in arrival order. */
export function headerLines(rawHeaders: readonly string[], name: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) lines.push(rawHeaders[i + 1]);
  return lines;
}
