/** The pieces the client commands share (src/cli/client-command-support.ts), without a door. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConnectionError, HttpRefusalError, StreamError, TaskNotFoundError } from '@murmur/client';
import { type AgentCard, CAPSULE_EXTENSION_URI } from '@murmur/protocol';
import { checkCard, inPlainWords, residueLine, residueOf, stateWord, statusText } from './client-command-support.js';

const target = { url: 'http://127.0.0.1:9', label: 'ses_x' };
const session = { sessionId: 'ses_a', name: 'hello', version: '0.1.0', url: 'http://127.0.0.1:9', pid: 1, capsuleDir: '/c', recordsDir: '/r', startedAt: '' };

describe('client command support', () => {
  test('every error kind has its plain words', () => {
    const refusal = (status: number, code: string) => new HttpRefusalError({ status, wwwAuthenticate: null, code, message: `refused ${code}` });
    assert.match(inPlainWords(new TaskNotFoundError({ code: -32001, message: 'Task not found' }), target), /refused the request: Task not found \(-32001\)/);
    assert.match(inPlainWords(refusal(401, 'invalid_token'), target), /refused the token \(401 invalid_token\)/);
    assert.match(inPlainWords(refusal(401, 'unauthenticated'), target), /needs a token \(401 unauthenticated\)/);
    assert.match(inPlainWords(refusal(403, 'insufficient_scope'), target), /may not do this \(403 insufficient_scope\): refused insufficient_scope/);
    assert.match(inPlainWords(refusal(404, 'not_found'), target), /answered HTTP 404/);
    assert.match(
      inPlainWords(new ConnectionError('down', { cause: new Error('fetch failed', { cause: new Error('ECONNREFUSED') }) }), target),
      /no answer from .*\(ses_x\): ECONNREFUSED/,
    );
    assert.match(inPlainWords(new StreamError('retries-exhausted', 'gave up', { method: 'm' }), target), /the stream from .* failed: gave up/);
    assert.match(inPlainWords(new DOMException('t', 'TimeoutError'), target), /in time$/);
    assert.equal(inPlainWords('odd', target), 'odd');
  });

  test('a card names its session, or is refused with a reason', () => {
    const card = (extra: Partial<AgentCard>) =>
      ({ name: 'hello', supportedInterfaces: [{ url: session.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], ...extra }) as unknown as AgentCard;
    const capsule = (sessionId: string) => ({ capabilities: { extensions: [{ uri: CAPSULE_EXTENSION_URI, params: { sessionId } }] } });
    assert.equal(checkCard({ name: 'old' } as unknown as AgentCard, session).ok, false);
    assert.equal(checkCard(card(capsule('ses_a') as never), session).ok, true);
    assert.deepEqual(checkCard(card(capsule('ses_b') as never), session), {
      ok: false,
      reason: 'the door at http://127.0.0.1:9 answers for session ses_b, not this one',
    });
    assert.equal(checkCard(card({ capabilities: { extendedAgentCard: true } } as never), session).ok, true);
    assert.equal(checkCard(card({}), session).ok, false);
  });

  test('residue, state words and status text', () => {
    assert.equal(residueLine({ kind: 'detached_shell', binary: 'sh', command: 'sleep 9', work_id: 'wrk_1' } as never), 'running: sh sleep 9 (work_id wrk_1)');
    const task = {
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_CANCELED' as const,
        timestamp: '2026-11-29T15:01:56.063Z',
        message: { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'one' }, { text: 'two' }] },
      },
      artifacts: [{ artifactId: 'residue', parts: [{ data: { kind: 'detached_shell' } }, { text: 'ignored' }] }],
    };
    assert.deepEqual(residueOf(task as never), [{ kind: 'detached_shell' }]);
    assert.equal(statusText(task), 'one\ntwo');
    assert.equal(stateWord('TASK_STATE_INPUT_REQUIRED'), 'input-required');
    assert.equal(stateWord('TASK_STATE_NEW'), 'TASK_STATE_NEW');
  });
});
