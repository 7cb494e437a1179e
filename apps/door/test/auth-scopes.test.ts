/**
 * Every scope against every method (seed 000, "Tokens"): a credential holding one scope reaches that method and
 * is refused every other one 403 insufficient_scope naming it; GetExtendedAgentCard needs no scope; the operator
 * reaches everything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  as,
  assertInsufficientScope,
  assertRpcError,
  assertRpcResult,
  authBlock,
  bearer,
  message,
  neverHeldId,
  openAs,
  raw,
  readTokensFile,
  SCOPED_METHODS,
  STREAM_EXTENSION_URI,
  tokensOf,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';

const REALM = 'scope-matrix';
/** One credential per scope, holding only that scope. */
const HOLDER: Record<(typeof SCOPED_METHODS)[number], string> = {
  SendMessage: 'send',
  SendStreamingMessage: 'stream',
  'murmur.WatchSession': 'watch',
  GetTask: 'get',
  ListTasks: 'list',
  CancelTask: 'cancel',
  SubscribeToTask: 'subscribe',
  'murmur.StopSession': 'stop',
};
const SCRIPT = `
default:
  turns:
    - answer: "done"
`;

let door: DoorProcess;
let tokens: Record<string, string>;

before(async () => {
  const credentials = { ...Object.fromEntries(SCOPED_METHODS.map((m) => [HOLDER[m], [m]])), files: ['resources/files'] };
  door = await runDoor(makeCapsule(manifestYaml({ name: REALM, extra: authBlock(credentials) }), SCRIPT));
  tokens = tokensOf(door);
});
after(async () => {
  await door?.stop();
});

/** Calls `method` as `credential` with params that, once the method is reached, answer quickly. Asserts it was reached. */
async function reach(method: (typeof SCOPED_METHODS)[number], credential: string): Promise<void> {
  const token = tokens[credential];
  const what = `${credential} → ${method}`;
  switch (method) {
    case 'SendMessage': {
      const result = assertRpcResult(await as(door.url, token, method, { message: message('hello') }), what);
      assert.equal(result.task.status.state, 'TASK_STATE_COMPLETED', what);
      return;
    }
    case 'SendStreamingMessage': {
      const answer = await openAs(door.url, token, method, { message: message('hello') });
      assert.equal(answer.kind, 'stream', `${what}: ${answer.kind === 'json' ? answer.text : ''}`);
      if (answer.kind !== 'stream') return;
      assert.equal(answer.stream.status, 200);
      await answer.stream.ended;
      const last = answer.stream.events.at(-1);
      assert.equal(last?.result?.statusUpdate?.status?.state, 'TASK_STATE_COMPLETED', what);
      return;
    }
    case 'murmur.WatchSession': {
      const answer = await openAs(door.url, token, method, {});
      assert.equal(answer.kind, 'stream', `${what}: ${answer.kind === 'json' ? answer.text : ''}`);
      if (answer.kind !== 'stream') return;
      await answer.stream.until((events) => events.length > 0, 'the connection-ack');
      assert.equal(answer.stream.events[0].result.message.metadata[STREAM_EXTENSION_URI].frame, 'connection-ack', what);
      answer.stream.abort();
      return;
    }
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask': {
      const error = assertRpcError(await as(door.url, token, method, { id: neverHeldId(1) }), -32001, what);
      assert.equal(error.data[0].metadata.taskId, neverHeldId(1));
      return;
    }
    case 'ListTasks': {
      const result = assertRpcResult(await as(door.url, token, method, {}), what);
      assert.equal(typeof result.totalSize, 'number', what);
      return;
    }
    case 'murmur.StopSession': {
      const result = assertRpcResult(await as(door.url, token, method, {}), what);
      assert.deepEqual(result.canceled, [], what);
      assert.equal(result.session_id, door.sessionId, what);
      return;
    }
  }
}

describe('one scope each', () => {
  test('tokens.json holds the operator first, then one token per declared credential with its scopes', () => {
    const minted = readTokensFile(door.recordsDir);
    assert.deepEqual(
      minted.map((t) => [t.credential, t.scopes]),
      [['operator', 'all'], ...SCOPED_METHODS.map((m) => [HOLDER[m], [m]]), ['files', ['resources/files']]],
    );
    assert.equal(new Set(minted.map((t) => t.token)).size, minted.length, 'every token differs');
  });

  for (const method of SCOPED_METHODS) {
    test(`${method}: its holder reaches it; each of the others is refused 403 insufficient_scope, scope="${method}"`, async () => {
      await reach(method, HOLDER[method]);
      const others = [...SCOPED_METHODS.filter((m) => m !== method).map((m) => HOLDER[m]), 'files'];
      const params =
        method === 'SendMessage' || method === 'SendStreamingMessage' ? { message: message('hello') } : method.endsWith('Task') ? { id: neverHeldId(2) } : {};
      const answers = await Promise.all(others.map(async (credential) => ({ credential, answer: await as(door.url, tokens[credential], method, params) })));
      for (const { credential, answer } of answers) assertInsufficientScope(answer, REALM, credential, method, `${credential} → ${method}`);
    });
  }

  test('resources/files: its holder and the operator pass step 4; each method-scoped credential is refused 403', async () => {
    for (const credential of ['files', 'operator']) {
      const answer = await raw(door.url, { method: 'GET', path: '/resources/files/a.txt', headers: bearer(tokens[credential]) });
      assert.ok(answer.status !== 401 && answer.status !== 403, `${credential}: ${answer.status} ${answer.text}`);
    }
    for (const method of SCOPED_METHODS) {
      const answer = await raw(door.url, { method: 'GET', path: '/resources/files/a.txt', headers: bearer(tokens[HOLDER[method]]) });
      assertInsufficientScope(answer, REALM, HOLDER[method], 'resources/files', `${HOLDER[method]} → resources/files`);
    }
  });

  test('GetExtendedAgentCard needs no scope: every valid token reaches it', async () => {
    for (const credential of ['operator', 'files', ...SCOPED_METHODS.map((m) => HOLDER[m])]) {
      const card = assertRpcResult(await as(door.url, tokens[credential], 'GetExtendedAgentCard'), credential);
      assert.equal(card.name, REALM, credential);
      assert.equal(card.capabilities.extendedAgentCard, true, credential);
    }
  });

  test('the operator reaches every method', async () => {
    for (const method of SCOPED_METHODS) await reach(method, 'operator');
  });

  test('the refused calls started nothing: only the reached SendMessage and SendStreamingMessage tasks exist', async () => {
    const listed = assertRpcResult(await as(door.url, tokens.operator, 'ListTasks', {}), 'operator ListTasks');
    // send and stream each started one task, and the operator one of each.
    assert.equal(listed.totalSize, 4, JSON.stringify(listed));
  });
});
