import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { IntakeBudget } from '../../common/request-body.js';
import type { DoorLog } from '../../session/door-log.js';
import type { ToolCallRequest } from '../../tools/tool-call.js';
import { MAX_JSON_DEPTH } from '../../common/json-depth.js';
import { TOOL_SERVER_BODY_LIMIT, TOOL_SERVER_INTAKE_BYTES, ToolServer } from './tool-server.js';

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

// One describe for the file: its hooks are its own when the specs run in one process (scripts/run-tests.mjs).
describe('the tool server', () => {
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

  /** A raw POST to /mcp with the run's token: its head and the first `sent` bytes of a body `declared` long (or chunked). */
  function rawPost(declared: number | 'chunked', sent: string): { socket: net.Socket; answer: Promise<string> } {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    const length = declared === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${declared}`;
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: tools\r\nauthorization: Bearer ${run.token}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n${length}\r\n\r\n${sent}`,
    );
    let text = '';
    const answer = new Promise<string>((resolve) => {
      socket
        .on('data', (d) => (text += d))
        .on('close', () => resolve(text))
        .on('error', () => resolve(text));
    });
    return { socket, answer };
  }

  test('a body declared over TOOL_SERVER_BODY_LIMIT is answered 413 before it is read; a chunked one once it passes the limit', async () => {
    const declared = rawPost(TOOL_SERVER_BODY_LIMIT + 1, '');
    const answer = await declared.answer;
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /connection: close/i);
    assert.ok(
      answer.endsWith(
        `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"the request body is larger than the tool server takes (${TOOL_SERVER_BODY_LIMIT} bytes)"}}`,
      ),
      answer,
    );
    const chunked = rawPost('chunked', '');
    const chunk = 'x'.repeat(64 * 1024);
    for (let sent = 0; sent <= TOOL_SERVER_BODY_LIMIT; sent += chunk.length) chunked.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    chunked.socket.write('0\r\n\r\n');
    assert.match(await chunked.answer, /^HTTP\/1\.1 413 [\s\S]*"code":-32000/);
  });

  test(`a body nested past ${MAX_JSON_DEPTH} levels is answered 400, -32600, and reaches no tool`, async () => {
    const before = calls.length;
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"session-status","arguments":{"x":${deep}}}}`,
    });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Invalid Request: the request body nests deeper than ${MAX_JSON_DEPTH} levels` },
    });
    assert.equal(calls.length, before);
    const within = await mcp(run.token, { method: 'tools/call', params: { name: 'session-status', arguments: { x: [[[[{ y: [1] }]]]] } } });
    assert.equal(within.status, 200, 'a body nested a few levels is answered');
  });

  test('a body that is not JSON is answered 400, -32700', async () => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":',
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32700);
  });

  test(`the bodies held at once are bounded (${TOOL_SERVER_INTAKE_BYTES} bytes): past it a request waits unread, and goes on when a sender leaves`, async () => {
    const holders = Array.from({ length: TOOL_SERVER_INTAKE_BYTES / TOOL_SERVER_BODY_LIMIT }, () => rawPost(TOOL_SERVER_BODY_LIMIT, '{"jsonrpc"'));
    // Every holder's body reserved (on a loaded machine their heads may take a while to arrive), so the next waits.
    const intake = (server as unknown as { intake: IntakeBudget }).intake;
    for (let i = 0; i < 500 && intake.heldBytes < TOOL_SERVER_INTAKE_BYTES; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(intake.heldBytes, TOOL_SERVER_INTAKE_BYTES, 'the holders fill the intake');
    let answered = false;
    const listed = mcp(run.token, { method: 'tools/list' }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(answered, false, 'a request past the bound waits');
    holders[0].socket.destroy();
    assert.equal((await listed).status, 200, 'a sender that left gave its place back');
    for (const holder of holders) holder.socket.destroy();
  });
});
