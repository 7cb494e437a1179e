/**
 * Planes as declared (docs/decisions.md, "Planes"; docs/planes.md): an undeclared plane answers every request 404
 * plane_not_served; the declared operator plane is served (planes-files.test.ts covers it in depth), and so is the
 * declared peer plane (planes-peer.test.ts), which answers a handle it never minted handle_not_found. The operator plane answers after the door token and the resources/files
 * scope (seed 000 step 4); the peer plane takes no door token (step 1), so an authenticated door answers it without a
 * 401, and peer consent (step 3) does not apply to it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authBlock, bearer, tokensOf } from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';
import { httpRequest, type RawAnswer } from './support/wire.js';

const SCRIPT = 'default:\n  turns:\n    - answer: ok\n';

let bare: DoorProcess;
let exporting: DoorProcess;
let secure: DoorProcess;

before(async () => {
  [bare, exporting, secure] = await Promise.all([
    runDoor(makeCapsule(manifestYaml({ name: 'no-planes' }), SCRIPT)),
    runDoor(makeCapsule(manifestYaml({ name: 'planes', extra: 'exports:\n  files:\n    root: .\n  peer_files:\n    root: .' }), SCRIPT)),
    runDoor(
      makeCapsule(
        manifestYaml({
          name: 'secure-planes',
          extra: `exports:\n  files:\n    root: .\n  peer_files:\n    root: .\n${authBlock({ files: ['resources/files'], watcher: ['murmur.WatchSession'] })}`,
        }),
        SCRIPT,
      ),
    ),
  ]);
});
after(async () => {
  await Promise.all([bare?.stop(), exporting?.stop(), secure?.stop()]);
});

function assertPlaneRefusal(answer: RawAnswer, message: string, what: string): void {
  assert.equal(answer.status, 404, `${what}: ${answer.text}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/, what);
  assert.deepEqual(answer.json, { error: 'plane_not_served', message }, what);
}

/** A declared peer plane answers every handle it does not serve this one refusal (docs/planes.md, "One refusal"). */
function assertHandleRefusal(answer: RawAnswer, what: string): void {
  assert.equal(answer.status, 404, `${what}: ${answer.text}`);
  assert.equal(answer.text, '{"error":"handle_not_found","message":"no file is shared under this handle for this audience"}', what);
}

const UNDECLARED_FILES = 'this capsule does not declare exports.files, so the operator plane at /resources/files serves nothing';
const UNDECLARED_PEER = 'this capsule does not declare exports.peer_files, so the peer plane at /resources/peer serves nothing';

const FILE_PATHS = ['/resources/files', '/resources/files/', '/resources/files/a.txt', '/resources/files/sub/b.md?x=1'];
const PEER_PATHS = ['/resources/peer', '/resources/peer/hdl_0123', '/resources/peer/hdl_0123?x=1'];

describe('an undeclared plane refuses every request', () => {
  test('files and peer, any method', async () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
      for (const path of FILE_PATHS) {
        const answer = await httpRequest(bare.url, { method, path });
        if (method === 'HEAD') assert.equal(answer.status, 404, `${method} ${path}`);
        else assertPlaneRefusal(answer, UNDECLARED_FILES, `${method} ${path}`);
      }
      for (const path of PEER_PATHS) {
        const answer = await httpRequest(bare.url, { method, path });
        if (method === 'HEAD') assert.equal(answer.status, 404, `${method} ${path}`);
        else assertPlaneRefusal(answer, UNDECLARED_PEER, `${method} ${path}`);
      }
    }
  });
});

/** The declared operator plane's answer to FILE_PATHS on a root holding murmur.yaml and script.yaml only. */
function assertFilesServed(answer: RawAnswer, path: string, what: string): void {
  const listing = path === '/resources/files' || path === '/resources/files/';
  assert.equal(answer.status, listing ? 200 : 404, `${what}: ${answer.text}`);
  if (listing)
    assert.deepEqual(
      answer.json.entries.map((e: { name: string }) => e.name),
      ['murmur.yaml', 'script.yaml'],
      what,
    );
  else assert.equal(answer.json.error, 'file_not_found', what);
}

describe('a declared plane', () => {
  test('both planes are served: a handle this door never minted is the one handle_not_found', async () => {
    for (const path of FILE_PATHS) assertFilesServed(await httpRequest(exporting.url, { method: 'GET', path }), path, path);
    for (const path of PEER_PATHS) assertHandleRefusal(await httpRequest(exporting.url, { method: 'GET', path }), path);
  });

  test('the card lists the declared planes, in order', async () => {
    const card = (await httpRequest(exporting.url, { method: 'GET', path: '/.well-known/agent-card.json' })).json as {
      capabilities: { extensions: { uri: string; params: { planes?: string[] } }[] };
    };
    const capsule = card.capabilities.extensions.find((e) => e.uri.endsWith('#murmur-capsule-v1'));
    assert.deepEqual(capsule?.params.planes, ['files', 'peer_files']);
  });
});

describe('on an authenticated door', () => {
  test('the peer plane is reached without a door token: the plane answers, never 401', async () => {
    for (const path of PEER_PATHS) {
      assertHandleRefusal(await httpRequest(secure.url, { method: 'GET', path }), `no token ${path}`);
      assertHandleRefusal(await httpRequest(secure.url, { method: 'GET', path, headers: { authorization: 'Bearer wrong' } }), `a wrong token ${path}`);
    }
  });

  test('the peer plane is not behind peer consent either (step 1 comes before step 3)', async () => {
    const answer = await httpRequest(secure.url, { method: 'GET', path: '/resources/peer/hdl_1', headers: { 'x-murmur-task-origin': 'peer' } });
    assertHandleRefusal(answer, 'a peer-origin redeem');
  });

  test('the operator plane: the token, then the scope, then the plane', async () => {
    const tokens = tokensOf(secure);
    for (const path of FILE_PATHS) {
      assert.equal((await httpRequest(secure.url, { method: 'GET', path })).status, 401, `no token ${path}`);
      assert.equal((await httpRequest(secure.url, { method: 'GET', path, headers: bearer(tokens.watcher) })).status, 403, `watcher ${path}`);
      assertFilesServed(await httpRequest(secure.url, { method: 'GET', path, headers: bearer(tokens.files) }), path, `files ${path}`);
      assertFilesServed(await httpRequest(secure.url, { method: 'GET', path, headers: bearer(tokens.operator) }), path, `operator ${path}`);
    }
  });
});
