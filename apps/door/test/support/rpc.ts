/** Plain HTTP helpers: the tests speak the wire directly, never through the SDK. */

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  json: any;
}

async function post(url: string, body: string | undefined, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const response = await fetch(`${url}/`, { method: 'POST', headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const JSON_HEADERS = { 'content-type': 'application/json', 'A2A-Version': '1.0' };

let nextId = 1;

/** One JSON-RPC call with the standard headers; `headers` may override or add. */
export function rpc(url: string, method: string, params?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: nextId++, method };
  if (params !== undefined) body.params = params;
  return post(url, JSON.stringify(body), { ...JSON_HEADERS, ...headers });
}

let messageCount = 0;

export function userMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `msg-test-${++messageCount}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** SendMessage with a text part; `config` becomes params.configuration. */
export function send(url: string, text: string, extra: Record<string, unknown> = {}, config?: Record<string, unknown>): Promise<HttpAnswer> {
  return rpc(url, 'SendMessage', { message: userMessage(text, extra), ...(config ? { configuration: config } : {}) });
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls GetTask until the task is in the given state. */
export function waitForState(url: string, taskId: string, state: string, timeoutMs?: number) {
  return waitFor(
    async () => {
      const answer = await rpc(url, 'GetTask', { id: taskId });
      return answer.json?.result?.status?.state === state ? answer.json.result : undefined;
    },
    `${taskId} to reach ${state}`,
    timeoutMs,
  );
}
