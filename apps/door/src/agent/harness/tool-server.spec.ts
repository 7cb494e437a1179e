import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { DoorLog } from '../../session/door-log.js';
import type { ToolCallRequest } from '../../tools/tool-call.js';
import { ToolServer } from './tool-server.js';

const log = { error: () => undefined } as unknown as DoorLog;
const server = new ToolServer(log);
// The door hands the server connections from a run's sandbox; here, from a loopback listener of the test's own.
const listener = net.createServer((socket) => server.serve(socket));
let url = '';
const calls: ToolCallRequest[] = [];
const run = server.open({
  tools: [{ name: 'session-status', description: 'Reports.', inputSchema: { type: 'object', properties: {} } }],
  call: async (call) => {
    calls.push(call);
    return { content: `<untrusted-content source=tool:${call.name}>\n{}\n</untrusted-content>`, isError: false };
  },
});

before(async () => {
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(listener.address() as net.AddressInfo).port}`;
});

after(() => {
  server.close();
  listener.close();
});

/** One MCP request as a harness's client posts it; the answer's JSON-RPC message (an SSE event, or a JSON body). */
async function mcp(
  token: string,
  body: Record<string, unknown>,
  path = '/mcp',
): Promise<{ status: number; message: Record<string, unknown> | null; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
  });
  const text = await response.text();
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? (text.startsWith('{') ? text : null);
  return { status: response.status, message: data === null ? null : (JSON.parse(data) as Record<string, unknown>), text };
}

test('a token of no open run is answered 401, a path other than /mcp 404', async () => {
  assert.equal((await mcp('nope', { method: 'tools/list' })).status, 401);
  const notFound = await mcp(run.token, { method: 'tools/list' }, '/other');
  assert.equal(notFound.status, 404);
  assert.equal(notFound.text, '{"error":"not_found","message":"the tool server answers /mcp"}');
});

test('the run’s tools are listed; a call is answered through the run, under the harness’s own id for it', async () => {
  const listed = await mcp(run.token, { method: 'tools/list' });
  assert.deepEqual(
    (listed.message!.result as { tools: { name: string }[] }).tools.map((t) => t.name),
    ['session-status'],
  );
  const called = await mcp(run.token, {
    method: 'tools/call',
    params: { name: 'session-status', arguments: {}, _meta: { 'claudecode/toolUseId': 'toolu_7' } },
  });
  assert.deepEqual(called.message?.result, {
    content: [{ type: 'text', text: '<untrusted-content source=tool:session-status>\n{}\n</untrusted-content>' }],
    isError: false,
  });
  assert.deepEqual(calls.at(-1), { id: 'toolu_7', name: 'session-status', input: {} });
  await mcp(run.token, { method: 'tools/call', params: { name: 'session-status', _meta: { callId: 'call_9' } } });
  assert.equal(calls.at(-1)!.id, 'call_9', "Codex's call id");
  assert.equal(run.inFlight(), false);
});

test('a closed run’s token is refused', async () => {
  const other = server.open({ tools: [], call: async () => ({ content: '', isError: false }) });
  other.close();
  assert.equal((await mcp(other.token, { method: 'tools/list' })).status, 401);
});
