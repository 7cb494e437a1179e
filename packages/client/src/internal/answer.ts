/**
 * Reading the door's answers: a JSON-RPC response (seed 000, "JSON-RPC request", "Errors") or one of the HTTP
 * refusal bodies of "What the door answers" (401/403/404 with `{"error", "message"}`).
 */
import { isPlainObject, type JsonRpcErrorObject, type JsonRpcId } from '@murmur/protocol';
import { A2AError, HttpRefusalError, InvalidResponseError } from '../errors.js';

/** An HTTP answer with its body read as text. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

function isErrorObject(value: unknown): value is JsonRpcErrorObject {
  return isPlainObject(value) && typeof value.code === 'number' && typeof value.message === 'string';
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error };
  }
}

const isSuccessStatus = (status: number): boolean => status >= 200 && status < 300;

export function httpRefusal(answer: Answer, body: unknown): HttpRefusalError {
  const code = isPlainObject(body) && typeof body.error === 'string' ? body.error : null;
  const sentence = isPlainObject(body) && typeof body.message === 'string' ? body.message : null;
  const fallback = answer.text.trim() === '' ? `HTTP ${answer.status}` : `HTTP ${answer.status}: ${answer.text.trim().slice(0, 200)}`;
  return new HttpRefusalError({
    status: answer.status,
    wwwAuthenticate: answer.headers.get('www-authenticate'),
    code,
    message: sentence ?? fallback,
    retryAfter: answer.headers.get('retry-after'),
  });
}

/**
 * The result of a JSON-RPC answer to request `requestId`, or the error it stands for. A JSON-RPC error with a null
 * id is accepted (the door answers -32700 and some -32600 with `id: null`, as JSON-RPC 2.0 §5 requires when it
 * could not read the id); any other id that is not the request's, with the same JSON type, is refused.
 */
export function readRpcAnswer(answer: Answer, requestId: JsonRpcId, method: string): unknown {
  const parsed = parseJson(answer.text);
  if (!parsed.ok) {
    if (!isSuccessStatus(answer.status)) throw httpRefusal(answer, null);
    throw new InvalidResponseError('not-json', `${method}: the door's answer is not JSON (HTTP ${answer.status})`, {
      status: answer.status,
      body: answer.text,
      cause: parsed.error,
    });
  }
  const body = parsed.value;
  const isEnvelope = isPlainObject(body) && body.jsonrpc === '2.0' && ('result' in body || 'error' in body);
  if (!isEnvelope) {
    if (!isSuccessStatus(answer.status)) throw httpRefusal(answer, body);
    throw new InvalidResponseError('not-jsonrpc', `${method}: the door's answer is not a JSON-RPC 2.0 response`, {
      status: answer.status,
      body: answer.text,
    });
  }
  const id = body.id as unknown;
  if ('error' in body) {
    if (!isErrorObject(body.error)) {
      throw new InvalidResponseError('not-jsonrpc', `${method}: the JSON-RPC error has no numeric code and string message`, {
        status: answer.status,
        body: answer.text,
      });
    }
    if (id !== null && id !== requestId) throw idMismatch(method, requestId, id, answer);
    throw A2AError.from(body.error, { method, requestId: id as JsonRpcId | null });
  }
  if (id !== requestId) throw idMismatch(method, requestId, id, answer);
  return body.result;
}

function idMismatch(method: string, expected: JsonRpcId, got: unknown, answer: Answer): InvalidResponseError {
  return new InvalidResponseError('id-mismatch', `${method}: the answer's id ${JSON.stringify(got)} is not the request's id ${JSON.stringify(expected)}`, {
    status: answer.status,
    body: answer.text,
  });
}

/** A result that must be a JSON object; anything else is an unexpected result. */
export function expectObject(result: unknown, method: string, what: string): Record<string, unknown> {
  if (!isPlainObject(result)) {
    throw new InvalidResponseError('unexpected-result', `${method}: expected ${what}, got ${JSON.stringify(result)?.slice(0, 100)}`);
  }
  return result;
}
