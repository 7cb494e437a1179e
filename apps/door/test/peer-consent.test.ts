/**
 * Peer consent (seed 000, "What the door answers" step 3, and "Door extension" params.peerTasks): a request
 * stamped x-murmur-task-origin: peer is refused 403 peer_not_accepted, byte-identical for every request, before
 * the path, the body or the method is read, unless the capsule declares exports.peer_tasks.accept: true.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { rpc } from './support/rpc.js';
import { envelope, httpRequest, type RawAnswer, type RawRequest, rawHttp, RPC_HEADERS, traceRecords } from './support/wire.js';

const DOOR_URI = 'https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1';
const SCRIPT = `
default:
  turns:
    - answer: "peer served"
`;

let closed: DoorProcess;
let declinedExplicitly: DoorProcess;
let open: DoorProcess;

before(async () => {
  [closed, declinedExplicitly, open] = await Promise.all([
    runDoor(makeCapsule(manifestYaml({ name: 'peer-closed' }), SCRIPT)),
    runDoor(makeCapsule(manifestYaml({ name: 'peer-declined', extra: 'exports:\n  peer_tasks:\n    accept: false' }), SCRIPT)),
    runDoor(makeCapsule(manifestYaml({ name: 'peer-open', extra: 'exports:\n  peer_tasks:\n    accept: true' }), SCRIPT)),
  ]);
});
after(async () => {
  await Promise.all([closed?.stop(), declinedExplicitly?.stop(), open?.stop()]);
});

const PEER = { 'x-murmur-task-origin': 'peer' };
const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });

/** A spread of requests that, without the peer header, would each answer differently. */
function requests(): Array<{ name: string; request: RawRequest }> {
  const json = (body: unknown, headers: Record<string, string> = RPC_HEADERS): RawRequest => ({
    method: 'POST',
    path: '/',
    headers: { ...headers, ...PEER },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return [
    { name: 'ListTasks', request: json(envelope('ListTasks', {}, 1)) },
    { name: 'SendMessage', request: json(envelope('SendMessage', message('hello'), 2)) },
    { name: 'GetTask of an unknown id', request: json(envelope('GetTask', { id: 'tsk_nope' }, 3)) },
    { name: 'murmur.StopSession', request: json(envelope('murmur.StopSession', {}, 4)) },
    { name: 'an unknown method', request: json(envelope('NoSuchMethod', {}, 5)) },
    { name: 'a push config method', request: json(envelope('CreateTaskPushNotificationConfig', {}, 6)) },
    { name: 'a tenant', request: json(envelope('ListTasks', { tenant: 'acme' }, 7)) },
    { name: 'invalid JSON', request: json('{"jsonrpc":') },
    { name: 'a batch', request: json([envelope('ListTasks', {}, 8)]) },
    { name: 'no A2A-Version', request: json(envelope('ListTasks', {}, 9), { 'content-type': 'application/json' }) },
    { name: 'text/plain', request: json('hello', { 'content-type': 'text/plain', 'A2A-Version': '1.0' }) },
    { name: 'no body', request: { method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...PEER } } },
    { name: 'GET /', request: { method: 'GET', path: '/', headers: PEER } },
    { name: 'POST /x', request: { ...json(envelope('ListTasks', {}, 10)), path: '/x' } },
    { name: 'PUT /', request: { ...json(envelope('ListTasks', {}, 11)), method: 'PUT' } },
    { name: 'DELETE /anything', request: { method: 'DELETE', path: '/anything', headers: PEER } },
    { name: 'GET /resources/files/a.txt', request: { method: 'GET', path: '/resources/files/a.txt', headers: PEER } },
    { name: 'POST to the card path', request: { ...json(envelope('ListTasks', {}, 12)), path: '/.well-known/agent-card.json' } },
    { name: 'a completion', request: json(envelope('SendMessage', message('c'), 13), { ...RPC_HEADERS, 'x-murmur-completion-session': 'ses_x' }) },
  ];
}

function assertPeerRefusal(answer: RawAnswer, reference: RawAnswer, name: string): void {
  assert.equal(answer.status, 403, `${name}: ${answer.text}`);
  assert.equal(answer.text, reference.text, `${name}: the body is byte-identical`);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  assert.equal(answer.headers['www-authenticate'], undefined, `${name}: no www-authenticate`);
  assert.equal(answer.headers['a2a-extensions'], undefined, `${name}: no A2A-Extensions`);
}

for (const which of ['absent', 'false'] as const) {
  describe(`exports.peer_tasks ${which === 'absent' ? 'absent' : 'accept: false'}`, () => {
    const door = () => (which === 'absent' ? closed : declinedExplicitly);

    test('every peer-origin request is refused 403 peer_not_accepted with one byte-identical body', async () => {
      const reference = await httpRequest(door().url, requests()[0].request);
      assert.equal(reference.status, 403);
      assert.deepEqual(Object.keys(reference.json).sort(), ['error', 'message']);
      assert.equal(reference.json.error, 'peer_not_accepted');
      assert.equal(typeof reference.json.message, 'string');
      for (const { name, request } of requests()) assertPeerRefusal(await httpRequest(door().url, request), reference, name);
    });

    test('the header name matches in any case, and two peer lines are still peer', async () => {
      const reference = await httpRequest(door().url, requests()[0].request);
      const body = JSON.stringify(envelope('ListTasks', {}, 1));
      for (const name of ['X-Murmur-Task-Origin', 'X-MURMUR-TASK-ORIGIN']) {
        const answer = await httpRequest(door().url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, [name]: 'peer' }, body });
        assertPeerRefusal(answer, reference, name);
      }
      const twice = await rawHttp(
        door().url,
        ['POST / HTTP/1.1', 'Content-Type: application/json', 'A2A-Version: 1.0', 'x-murmur-task-origin: peer', 'X-Murmur-Task-Origin: peer'],
        body,
      );
      assertPeerRefusal(twice, reference, 'two lines');
      for (const value of ['peer, peer', 'completion, peer', ' Peer ']) {
        const listed = await httpRequest(door().url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, 'x-murmur-task-origin': value }, body });
        assertPeerRefusal(listed, reference, `one line: ${value}`);
      }
    });

    test('a refused peer SendMessage starts nothing and writes no trace record', async () => {
      const before = (await rpc(door().url, 'ListTasks', {})).json.result.totalSize;
      const starts = traceRecords(door().recordsDir).filter((r) => r.type === 'task_start').length;
      const answer = await httpRequest(door().url, requests()[1].request);
      assert.equal(answer.status, 403);
      assert.equal((await rpc(door().url, 'ListTasks', {})).json.result.totalSize, before);
      assert.equal(traceRecords(door().recordsDir).filter((r) => r.type === 'task_start').length, starts);
    });

    test('the card is still served to a peer-origin GET, and says peerTasks false', async () => {
      const answer = await httpRequest(door().url, { method: 'GET', path: '/.well-known/agent-card.json', headers: PEER });
      assert.equal(answer.status, 200);
      const ext = answer.json.capabilities.extensions.find((e: { uri: string }) => e.uri === DOOR_URI);
      assert.equal(ext.params.peerTasks, false);
      // The card path is the path, whatever the query string.
      const withQuery = await httpRequest(door().url, { method: 'GET', path: '/.well-known/agent-card.json?fresh=1', headers: PEER });
      assert.equal(withQuery.status, 200);
      assert.equal(withQuery.text, answer.text);
    });

    test('other origins are served as any request', async () => {
      for (const origin of ['user', 'operator', '']) {
        const answer = await httpRequest(door().url, {
          method: 'POST',
          path: '/',
          headers: { ...RPC_HEADERS, 'x-murmur-task-origin': origin },
          body: JSON.stringify(envelope('ListTasks', {}, 1)),
        });
        assert.equal(answer.status, 200, `${origin}: ${answer.text}`);
        assert.equal(typeof answer.json.result.totalSize, 'number');
      }
    });
  });
}

describe('exports.peer_tasks.accept: true', () => {
  test('the card says peerTasks true', async () => {
    const card = (await (await fetch(`${open.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: Array<{ uri: string; params: { peerTasks: boolean } }> };
    };
    assert.equal(card.capabilities.extensions.find((e) => e.uri === DOOR_URI)!.params.peerTasks, true);
  });

  test('peer-origin requests are served through the ordinary pipeline', async () => {
    const list = await httpRequest(open.url, {
      method: 'POST',
      path: '/',
      headers: { ...RPC_HEADERS, ...PEER },
      body: JSON.stringify(envelope('ListTasks', {}, 1)),
    });
    assert.equal(list.status, 200);
    assert.equal(typeof list.json.result.totalSize, 'number');

    const sent = await httpRequest(open.url, {
      method: 'POST',
      path: '/',
      headers: { ...RPC_HEADERS, ...PEER },
      body: JSON.stringify(envelope('SendMessage', message('from a peer'), 2)),
    });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(sent.json.result.task.artifacts[0].parts[0].text, 'peer served');

    // The later steps still apply: a peer request is not exempt from them.
    const unknown = await httpRequest(open.url, {
      method: 'POST',
      path: '/',
      headers: { ...RPC_HEADERS, ...PEER },
      body: JSON.stringify(envelope('NoSuchMethod', {}, 3)),
    });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.json.error.code, -32601);
    const notFound = await httpRequest(open.url, { method: 'GET', path: '/', headers: PEER });
    assert.equal(notFound.status, 404);
  });
});
