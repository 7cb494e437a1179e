import assert from 'node:assert/strict';
import test from 'node:test';
import { ERRORS, type ErrorName, failure, rpcError, taskNotCancelable, taskNotFound, unsupportedForTask, versionNotSupported } from '@murmur/protocol';
import {
  A2AError,
  HttpRefusalError,
  isA2AError,
  isConnectionError,
  isHttpRefusalError,
  isInvalidResponseError,
  isMurmurError,
  isStreamError,
  MurmurClient,
  StreamError,
  TaskNotCancelableError,
  TaskNotFoundError,
  VersionNotSupportedError,
} from '../src/index.js';
import { readRpcAnswer } from '../src/internal/answer.js';

// Errors as typed classes: JSON-RPC envelopes (seed 000, "Errors") and the HTTP refusal bodies of "What the door answers".

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ 'content-type': 'application/json', ...headers }),
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
}

test('every row of the protocol error table maps to its own class, name, reason, domain and retryability', () => {
  for (const name of Object.keys(ERRORS) as ErrorName[]) {
    const row = ERRORS[name];
    const error = caught(() => readRpcAnswer(answer(200, failure(4, rpcError(name, 'why', { taskId: 'tsk_1' }))), 4, 'GetTask'));
    assert.ok(isA2AError(error), name);
    assert.ok(isA2AError(error, name));
    assert.equal(error.errorName, name);
    assert.equal(error.name, `${name.replace(/Error$/, '')}Error`);
    assert.equal(error.code, row.code);
    assert.equal(error.message, 'why');
    assert.equal(error.reason, row.reason);
    assert.equal(error.domain, row.domain);
    assert.deepEqual(error.metadata, row.reason === null ? {} : { taskId: 'tsk_1' });
    assert.equal(error.retryable, row.retryable);
    assert.equal(error.method, 'GetTask');
    assert.equal(error.requestId, 4);
    assert.ok(error instanceof A2AError);
  }
});

test('the seed’s own error bodies keep their ErrorInfo metadata', () => {
  const cancel = caught(() => readRpcAnswer(answer(200, failure(3, taskNotCancelable('tsk_9', 'TASK_STATE_COMPLETED'))), 3, 'CancelTask'));
  assert.ok(cancel instanceof TaskNotCancelableError);
  assert.deepEqual(cancel.metadata, { taskId: 'tsk_9', state: 'TASK_STATE_COMPLETED' });
  assert.equal(cancel.message, 'Task cannot be canceled: it is already TASK_STATE_COMPLETED');

  const version = caught(() => readRpcAnswer(answer(200, failure(1, versionNotSupported(''))), 1, 'GetTask'));
  assert.ok(version instanceof VersionNotSupportedError);
  assert.deepEqual(version.metadata, { requestedVersion: '', supportedVersions: '1.0' });

  const ended = caught(() => readRpcAnswer(answer(200, failure(1, unsupportedForTask('ended', 'tsk_2', 'TASK_STATE_FAILED'))), 1, 'SubscribeToTask'));
  assert.ok(isA2AError(ended, 'UnsupportedOperation'));
  assert.equal(ended.metadata.state, 'TASK_STATE_FAILED');
  assert.ok(
    isA2AError(
      caught(() => readRpcAnswer(answer(200, failure(1, taskNotFound('tsk_x'))), 1, 'GetTask')),
      'TaskNotFound',
    ),
  );
});

test('a code outside the table is a plain A2AError with no errorName, never retried', () => {
  const error = caught(() => readRpcAnswer(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32099, message: 'odd' } }), 1, 'GetTask'));
  assert.ok(isA2AError(error));
  assert.equal(error.constructor, A2AError);
  assert.equal(error.errorName, undefined);
  assert.equal(error.name, 'A2AError');
  assert.equal(error.reason, null);
  assert.equal(error.retryable, false);
});

test('an error answered with id null (-32700, -32600) is accepted; any other foreign id is an id mismatch', () => {
  assert.ok(
    isA2AError(
      caught(() => readRpcAnswer(answer(200, failure(null, rpcError('ParseError'))), 5, 'GetTask')),
      'ParseError',
    ),
  );
  const wrongError = caught(() => readRpcAnswer(answer(200, failure(6, rpcError('ParseError'))), 5, 'GetTask'));
  assert.ok(isInvalidResponseError(wrongError));
  assert.equal(wrongError.reason, 'id-mismatch');
  const wrongType = caught(() => readRpcAnswer(answer(200, { jsonrpc: '2.0', id: '5', result: {} }), 5, 'GetTask'));
  assert.ok(isInvalidResponseError(wrongType));
  assert.equal(wrongType.reason, 'id-mismatch');
  const nullResult = caught(() => readRpcAnswer(answer(200, { jsonrpc: '2.0', id: null, result: {} }), 5, 'GetTask'));
  assert.ok(isInvalidResponseError(nullResult));
});

test('a non-JSON or non-JSON-RPC 200 answer is a clear InvalidResponseError', () => {
  const html = caught(() => readRpcAnswer(answer(200, '<html>proxy</html>'), 1, 'GetTask'));
  assert.ok(isInvalidResponseError(html));
  assert.equal(html.reason, 'not-json');
  assert.equal(html.status, 200);
  assert.equal(html.bodySnippet, '<html>proxy</html>');
  assert.match(html.message, /GetTask: the door's answer is not JSON/);
  const other = caught(() => readRpcAnswer(answer(200, { ok: true }), 1, 'GetTask'));
  assert.ok(isInvalidResponseError(other));
  assert.equal(other.reason, 'not-jsonrpc');
  const badError = caught(() => readRpcAnswer(answer(200, { jsonrpc: '2.0', id: 1, error: { code: 'x' } }), 1, 'GetTask'));
  assert.ok(isInvalidResponseError(badError));
});

// The table under "What the door answers": status, www-authenticate and body error for each refusal.
const REFUSALS: [number, string | null, string, string][] = [
  [401, 'Bearer realm="my-agent"', 'unauthenticated', 'a token is required'],
  [401, 'Bearer realm="my-agent", error="invalid_token"', 'invalid_token', 'the token is not valid for this session'],
  [403, null, 'peer_not_accepted', 'this capsule does not accept tasks from peer capsules'],
  [403, 'Bearer realm="my-agent", error="insufficient_scope", scope="SendMessage"', 'insufficient_scope', "credential 'watcher' does not reach SendMessage"],
  [404, null, 'not_found', 'this door answers POST / …'],
];

for (const [status, wwwAuthenticate, code, message] of REFUSALS) {
  test(`HTTP ${status} ${code} becomes an HttpRefusalError with its status, www-authenticate, code and message`, () => {
    const headers: Record<string, string> = wwwAuthenticate === null ? {} : { 'www-authenticate': wwwAuthenticate };
    const error = caught(() => readRpcAnswer(answer(status, { error: code, message }, headers), 1, 'SendMessage'));
    assert.ok(isHttpRefusalError(error));
    assert.ok(error instanceof HttpRefusalError);
    assert.equal(error.status, status);
    assert.equal(error.wwwAuthenticate, wwwAuthenticate);
    assert.equal(error.code, code);
    assert.equal(error.message, message);
    assert.equal(error.retryable, false);
    assert.equal(isA2AError(error), false);
  });
}

test('a proxy’s non-JSON 502 is an HttpRefusalError without a body code', () => {
  const error = caught(() => readRpcAnswer({ status: 502, headers: new Headers({ 'retry-after': '1' }), text: '<h1>Bad Gateway</h1>' }, 1, 'GetTask'));
  assert.ok(isHttpRefusalError(error));
  assert.equal(error.code, null);
  assert.equal(error.retryAfter, '1');
  assert.equal(error.retryable, true);
  assert.match(error.message, /HTTP 502: <h1>Bad Gateway/);
});

test('the guards read a Symbol.for brand, so errors from another copy of the package are recognised', () => {
  // An error built by another bundle: a different class, the same global brand.
  const foreign = Object.assign(new Error('Task not found'), { [Symbol.for('@murmur/client.error')]: 'A2AError', errorName: 'TaskNotFound', code: -32001 });
  assert.equal(foreign instanceof A2AError, false);
  assert.equal(isA2AError(foreign), true);
  assert.equal(isA2AError(foreign, 'TaskNotFound'), true);
  assert.equal(isA2AError(foreign, 'TaskNotCancelable'), false);
  assert.equal(isMurmurError(foreign), true);
  assert.equal(isA2AError(new Error('x')), false);
  assert.equal(isA2AError(null), false);
  assert.equal(isA2AError({ code: -32001 }), false);
  const stream = new StreamError('connection-lost', 'x', { method: 'murmur.WatchSession' });
  assert.equal(isStreamError(stream), true);
  assert.equal(isA2AError(stream), false);
  assert.equal(isConnectionError(stream), false);
});

test('the client maps a door refusal to its typed error (fake fetch)', async () => {
  const client = new MurmurClient('http://door.test', {
    fetch: async (_url, init) => {
      const { id } = JSON.parse(String(init.body));
      return new Response(JSON.stringify(failure(id, taskNotFound('tsk_gone'))), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  await assert.rejects(client.getTask('tsk_gone'), (error: unknown) => {
    assert.ok(error instanceof TaskNotFoundError);
    assert.equal(error.metadata.taskId, 'tsk_gone');
    return true;
  });
  const unauthenticated = new MurmurClient('http://door.test', {
    fetch: async () =>
      new Response(JSON.stringify({ error: 'unauthenticated', message: 'a token is required' }), {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="my-agent"' },
      }),
  });
  await assert.rejects(unauthenticated.listTasks(), {
    name: 'HttpRefusalError',
    status: 401,
    code: 'unauthenticated',
    wwwAuthenticate: 'Bearer realm="my-agent"',
  });
});
