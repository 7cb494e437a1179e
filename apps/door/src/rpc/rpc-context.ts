import type { ServerResponse } from 'node:http';
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, MethodName, RequestHeaderLines } from '@murmur/protocol';
import type { Caller } from '../auth/caller.js';
import type { CallTraceContext, StreamedTask } from './rpc-observer.js';

/** One JSON-RPC request that passed steps 2–13, as a method handler receives it. */
export interface RpcCall {
  id: JsonRpcId;
  method: string;
  params: JsonObject;
  caller: Caller;
  headers: Record<string, string | string[] | undefined>;
  /** The headers the door reads, each one's lines, read once as the request came in (readRequestHeaders). */
  lines: RequestHeaderLines;
  /** Gives back the request body's share of the intake budget, once the method has taken in what it needs of it. */
  releaseBody?: () => void;
  /** With telemetry on, the request's server span: a task it starts continues it instead of the caller's traceparent. */
  traceContext?: CallTraceContext | null;
  /** With telemetry on, told the task an event stream opens with and each state it then writes (docs/telemetry.md). */
  streamedTask?: (task: StreamedTask) => void;
}

/** Starts writing an event stream on a response whose status and headers are already sent. */
export type StreamStart = (res: ServerResponse) => void;

/**
 * What a method answers: a result (or its JSON text), a JSON-RPC error, or an event stream. `extensions` are the URIs the answer names
 * in A2A-Extensions.
 */
export type RpcAnswer =
  | { result: unknown; extensions?: string[] }
  /** A result already serialized: exactly the JSON.stringify of the result it stands for; `headers` join the answer's. */
  | { resultJson: string; extensions?: string[]; headers?: Readonly<Record<string, string>> }
  | { error: JsonRpcErrorObject }
  | { stream: StreamStart; extensions?: string[] };

/** One JSON-RPC method the door serves: registered with the pipeline under its name, asked at step 14. */
/** Every method handler the door has (methods/), handed to the pipeline when it is made: bound in app.module.ts. */
export const RPC_METHODS = Symbol('RPC_METHODS');

export interface RpcMethod {
  readonly method: MethodName;
  handle(call: RpcCall): Promise<RpcAnswer>;
  /**
   * The answer when the method has it in memory without waiting for anything (GetTask of a mirrored task), else
   * null and `handle` answers. Must answer exactly what `handle` would.
   */
  answerNow?(call: RpcCall): RpcAnswer | null;
}
