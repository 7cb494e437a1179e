/** Steps 7, 12 and 13 of "What the door answers": the JSON-RPC envelope, params, and tenant (seed 000). */
import { invalidParams, rpcError } from './errors.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, JsonRpcRequest, JsonRpcResponse } from './types.js';

export type EnvelopeVerdict = { ok: true; request: JsonRpcRequest } | { ok: false; id: JsonRpcId | null; error: JsonRpcErrorObject };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValidId(id: unknown): id is JsonRpcId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/**
 * Reads a parsed body as one JSON-RPC 2.0 request. A batch array, a notification, a wrong jsonrpc, a method
 * that is not a string or an id that is neither a string nor an integer is refused -32600, echoing the id when
 * the id itself is valid. params is not judged here (step 12 comes after the method and version checks).
 */
export function readEnvelope(body: unknown): EnvelopeVerdict {
  const id = isPlainObject(body) && isValidId(body.id) ? body.id : null;
  const refuse = (): EnvelopeVerdict => ({ ok: false, id, error: rpcError('InvalidRequest') });
  if (!isPlainObject(body)) return refuse();
  if (body.jsonrpc !== '2.0') return refuse();
  if (typeof body.method !== 'string') return refuse();
  if (!isValidId(body.id)) return refuse();
  const request: JsonRpcRequest = { jsonrpc: '2.0', id: body.id, method: body.method };
  if ('params' in body) request.params = body.params as JsonObject;
  return { ok: true, request };
}

/** Step 12: params present and not an object. Omitted params read as {}. */
export function readParams(request: JsonRpcRequest): { ok: true; params: JsonObject } | { ok: false; error: JsonRpcErrorObject } {
  if (!('params' in request)) return { ok: true, params: {} };
  const params: unknown = request.params;
  if (!isPlainObject(params)) return { ok: false, error: invalidParams('Invalid params: params must be an object') };
  return { ok: true, params: params as JsonObject };
}

/** Step 13: a tenant other than "" is refused; the value is shown as JSON, so 7 reads `tenant 7`. */
export function checkTenant(params: JsonObject): JsonRpcErrorObject | null {
  if (!('tenant' in params) || params.tenant === '') return null;
  return invalidParams(`Invalid params: tenant ${JSON.stringify(params.tenant)} names a tenant; this agent serves no tenants, so omit tenant`);
}

export function success<T>(id: JsonRpcId | null, result: T): JsonRpcResponse<T> {
  return { jsonrpc: '2.0', id, result };
}

/**
 * The text JSON.stringify(success(id, result)) writes before the result: a result already serialized (a cached task,
 * a stream's event) is framed as `${successHead(id)}${resultJson}}` without parsing it again.
 */
export function successHead(id: JsonRpcId | null): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
}

export function failure(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcResponse<never> {
  return { jsonrpc: '2.0', id, error };
}
