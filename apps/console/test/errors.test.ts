import { A2AError, ConnectionError, HttpRefusalError, InvalidResponseError, StreamError } from '@murmur/client';
import { describe, expect, it } from 'vitest';
import { ConsoleApiError, describeError, isAbort } from '../src/lib/io/errors';

const door = { door: '127.0.0.1:41873' };
const errorInfo = (reason: string, metadata: Record<string, string>) => [
  { '@type': 'type.googleapis.com/google.rpc.ErrorInfo' as const, reason, domain: 'a2a-protocol.org', metadata },
];

describe('describeError', () => {
  it('says a 401 door needs a token and asks for one', () => {
    const error = new HttpRefusalError({
      status: 401,
      wwwAuthenticate: 'Bearer realm="secure"',
      code: 'unauthenticated',
      message: 'this door needs a bearer token: send Authorization: Bearer <token> (mur token prints them)',
    });
    const problem = describeError(error, door);
    expect(problem).toMatchObject({ kind: 'needs-token', title: 'This door needs a token', needsToken: true, code: 401 });
    expect(problem.detail).toContain('mur token');
  });

  it('names a missing scope for a 403 insufficient_scope', () => {
    const error = new HttpRefusalError({
      status: 403,
      wwwAuthenticate: null,
      code: 'insufficient_scope',
      message: "credential 'watcher' does not reach CancelTask",
    });
    expect(describeError(error, door)).toMatchObject({
      kind: 'forbidden',
      title: 'This token may not do that',
      detail: "credential 'watcher' does not reach CancelTask",
      needsToken: false,
    });
  });

  it('reads a proxy 502 and a connection failure as an unreachable door', () => {
    const bad = new HttpRefusalError({
      status: 502,
      wwwAuthenticate: null,
      code: 'door_unreachable',
      message: 'cannot reach the door at 127.0.0.1:41873: connect ECONNREFUSED 127.0.0.1:41873',
    });
    expect(describeError(bad, door)).toMatchObject({
      kind: 'unreachable',
      title: 'Cannot reach the door at 127.0.0.1:41873',
      detail: 'connect ECONNREFUSED 127.0.0.1:41873',
    });
    const gone = new ConnectionError('GetTask: no answer from http://…: fetch failed');
    expect(describeError(gone, door)).toMatchObject({ kind: 'unreachable', title: 'Cannot reach the door at 127.0.0.1:41873' });
  });

  it("words the console proxy's own refusals", () => {
    const error = new HttpRefusalError({
      status: 403,
      wwwAuthenticate: null,
      code: 'not_loopback',
      message: "the console only reaches doors on this machine's loopback, not 10.0.0.1",
    });
    expect(describeError(error, door)).toMatchObject({ kind: 'refused', title: 'mur console will not reach this address', code: 403 });
  });

  it('shows an A2A error by its own message, with its reason and metadata', () => {
    const error = A2AError.from({
      code: -32002,
      message: 'Task cannot be canceled',
      data: errorInfo('TASK_NOT_CANCELABLE', { taskId: 'tsk_1', state: 'TASK_STATE_COMPLETED' }),
    });
    const problem = describeError(error, door);
    expect(problem).toMatchObject({ kind: 'a2a', title: 'Task cannot be canceled', code: -32002 });
    expect(problem.detail).toBe('TASK_NOT_CANCELABLE — taskId: tsk_1, state: TASK_STATE_COMPLETED');
  });

  it('reads a refused reconnect by its cause (a stale token is a token problem)', () => {
    const cause = new HttpRefusalError({ status: 401, wwwAuthenticate: null, code: 'invalid_token', message: 'this token was not minted by this session' });
    const error = new StreamError('reconnect-refused', 'murmur.WatchSession: the door refused the reconnect', { method: 'murmur.WatchSession', cause });
    expect(describeError(error, door)).toMatchObject({ kind: 'needs-token', needsToken: true });
  });

  it('says a stream was lost, and why', () => {
    const cause = new ConnectionError('the stream failed');
    const error = new StreamError('retries-exhausted', 'gave up after 8 reconnect attempts', { method: 'murmur.WatchSession', cause });
    const problem = describeError(error, door);
    expect(problem).toMatchObject({ kind: 'stream', title: 'Lost the stream from the door at 127.0.0.1:41873' });
    expect(problem.detail).toContain('Cannot reach the door at 127.0.0.1:41873');
  });

  it('covers unreadable answers, the console API, and anything else', () => {
    expect(describeError(new InvalidResponseError('not-json', "GetTask: the door's answer is not JSON (HTTP 200)"), door)).toMatchObject({
      kind: 'invalid-response',
    });
    expect(describeError(new ConsoleApiError('/api/sessions answered HTTP 500', 500))).toMatchObject({
      kind: 'api',
      title: 'mur console did not answer',
      code: 500,
    });
    expect(describeError(new ConsoleApiError('/api/formations answered HTTP 403: not for 10.0.0.1', 403))).toMatchObject({
      kind: 'api',
      title: 'mur console refused',
      detail: '/api/formations answered HTTP 403: not for 10.0.0.1',
      code: 403,
    });
    expect(describeError(new Error('boom'))).toMatchObject({ kind: 'unknown', title: 'boom' });
    expect(describeError('odd')).toMatchObject({ kind: 'unknown', title: 'odd' });
  });

  it('recognises aborts the console caused', () => {
    expect(isAbort(new DOMException('bye', 'AbortError'))).toBe(true);
    expect(isAbort(new Error('bye'))).toBe(false);
  });
});
