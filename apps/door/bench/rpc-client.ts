/** One JSON-RPC call over fetch, for setup and for the timed ListTasks samples. */

export const RPC_HEADERS: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };

export interface RpcOutcome {
  /** The parsed `result`; the call throws on a JSON-RPC error or a non-200 status. */
  result: Record<string, unknown>;
  /** Wall time of the request, from send to the end of the body, in milliseconds. */
  elapsedMs: number;
}

let nextId = 1;

export function rpcBody(method: string, params: Record<string, unknown>, id: number | string = nextId++): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

export async function rpc(url: string, method: string, params: Record<string, unknown>): Promise<RpcOutcome> {
  const started = performance.now();
  const response = await fetch(`${url}/`, { method: 'POST', headers: RPC_HEADERS, body: rpcBody(method, params) });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  if (response.status !== 200) throw new Error(`${method} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text) as { result?: Record<string, unknown>; error?: unknown };
  if (answer.result === undefined) throw new Error(`${method} failed: ${JSON.stringify(answer.error ?? answer).slice(0, 300)}`);
  return { result: answer.result, elapsedMs };
}

/** The SendMessage params of one bench task; `messageId` must be unique per message. */
export function sendParams(text: string, messageId: string): Record<string, unknown> {
  return { message: { messageId, role: 'ROLE_USER', parts: [{ text }] } };
}
