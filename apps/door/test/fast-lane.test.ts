/**
 * The fast lane (src/rpc/rpc-fast-lane.ts) serves POST / with a small declared body on node:http directly; a chunked
 * body, a query string or a token the gate refuses goes through Fastify's routes. Both must answer the same request
 * the same bytes: each request here is sent both ways and the answers compared whole (status, header lines, body),
 * for a found task, an unknown one, refusals at each step the lane's checks touch, and a door that authenticates.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { authBlock, tokensOf } from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc } from './support/rpc.js';

/** The answer to one request on a fresh connection, read until the door closes it; the Date line blanked. */
function exchange(url: string, head: string[], body: string, chunked: boolean): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text.replace(/\r\ndate: [^\r]*/i, '\r\ndate: -')));
    const length = Buffer.byteLength(body);
    const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
    const payload = chunked ? (length > 0 ? `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n` : '0\r\n\r\n') : body;
    socket.write([...head, `Host: ${target.host}`, framing, 'Connection: close', '', ''].join('\r\n') + payload);
  });
}

const RPC_HEAD = ['POST / HTTP/1.1', 'Content-Type: application/json', 'A2A-Version: 1.0'];

async function bothWays(url: string, head: string[], body: string): Promise<{ lane: string; routes: string }> {
  return { lane: await exchange(url, head, body, false), routes: await exchange(url, head, body, true) };
}

describe('the fast lane answers as the routes do', () => {
  let door: DoorProcess;
  let taskId: string;
  before(async () => {
    door = await runDoor(makeCapsule(manifestYaml({ name: 'fast-lane', acceptance: 'queue' }), 'default:\n  turns:\n    - answer: pong\n'));
    const sent = await rpc(door.url, 'SendMessage', { message: { messageId: 'fast-1', role: 'ROLE_USER', parts: [{ text: 'ping' }] } });
    taskId = sent.json.result.task.id;
  });
  after(() => door.stop());

  const bodies: [string, () => string][] = [
    ['GetTask of a task the mirror holds', () => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: taskId } })],
    [
      'GetTask of an unknown task',
      () => JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'GetTask', params: { id: 'tsk_00000000000000000000000000000000' } }),
    ],
    ['GetTask without an id', () => JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: {} })],
    ['a body that is not JSON', () => '{nope'],
    ['no body', () => ''],
    ['an unknown method', () => JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'Nope', params: {} })],
    ['not JSON-RPC 2.0', () => JSON.stringify({ jsonrpc: '1.0', id: 10, method: 'GetTask' })],
    ['ListTasks', () => JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'ListTasks', params: { pageSize: 1 } })],
  ];
  for (const [name, body] of bodies) {
    test(name, async () => {
      const { lane, routes } = await bothWays(door.url, RPC_HEAD, body());
      assert.match(lane, /^HTTP\/1\.1 (200|404) /);
      assert.equal(lane, routes);
    });
  }

  test('an A2A-Version the door does not speak, and a content type in another spelling', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'GetTask', params: { id: taskId } });
    const version = await bothWays(door.url, ['POST / HTTP/1.1', 'Content-Type: application/json', 'A2A-Version: 9.9'], body);
    assert.match(version.lane, /-32009|VersionNotSupported/);
    assert.equal(version.lane, version.routes);
    const spelling = await bothWays(door.url, ['POST / HTTP/1.1', 'Content-Type: Application/JSON; charset=utf-8', 'A2A-Version: 1.0'], body);
    assert.match(spelling.lane, /"result":\{"id":/);
    assert.equal(spelling.lane, spelling.routes);
  });
});

describe('the fast lane on a door that authenticates', () => {
  let door: DoorProcess;
  before(async () => {
    door = await runDoor(
      makeCapsule(manifestYaml({ name: 'fast-lane-auth', acceptance: 'queue', extra: authBlock({}) }), 'default:\n  turns:\n    - answer: pong\n'),
    );
  });
  after(() => door.stop());

  test('a request without a token is refused, one with the operator token answered, as the routes do', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'tsk_00000000000000000000000000000000' } });
    const refused = await bothWays(door.url, RPC_HEAD, body);
    assert.match(refused.lane, /^HTTP\/1\.1 401 /);
    assert.equal(refused.lane, refused.routes);
    const admitted = await bothWays(door.url, [...RPC_HEAD, `Authorization: Bearer ${tokensOf(door).operator}`], body);
    assert.match(admitted.lane, /^HTTP\/1\.1 200 [\s\S]*-32001/);
    assert.equal(admitted.lane, admitted.routes);
  });
});
