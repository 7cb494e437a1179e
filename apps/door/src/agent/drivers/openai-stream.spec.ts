/**
 * An error inside a chat-completions stream (docs/drivers.md, "Failures"): its message passes the drivers' one
 * redaction (provider-failure.ts, `redact`), as the Anthropic stream's and the HTTP bodies' do — every occurrence of
 * the key replaced, cut at 500 characters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenAiStream } from './openai-stream.js';
import { ProviderFailure } from './provider-failure.js';

const failureOf = (data: unknown, key: string | null): ProviderFailure => {
  const stream = new OpenAiStream(() => undefined, key);
  try {
    stream.event({ data: JSON.stringify(data), event: undefined, id: undefined });
  } catch (error) {
    assert.ok(error instanceof ProviderFailure);
    return error;
  }
  assert.fail('the error event was not thrown');
};

test('the key the provider quotes back is redacted, wherever it occurs; the error type is kept', () => {
  const failure = failureOf({ error: { message: 'key sk-live-1 refused (sk-live-1)', type: 'invalid_request_error' } }, 'sk-live-1');
  assert.equal(failure.kind, 'stream-error');
  assert.equal(failure.message, 'invalid_request_error: key [redacted] refused ([redacted])');
  assert.equal(failure.details.errorType, 'invalid_request_error');
  assert.equal(failureOf({ error: 'sk-live-1 is not valid' }, 'sk-live-1').message, 'error: [redacted] is not valid');
});

test('a long message is cut at 500 characters, as every provider message is; no key, or an empty one, redacts nothing', () => {
  assert.equal(failureOf({ error: { message: 'x'.repeat(900) } }, 'k').message, `error: ${'x'.repeat(500)}…`);
  assert.equal(failureOf({ error: { message: 'plain words' } }, '').message, 'error: plain words');
  assert.equal(failureOf({ error: {} }, null).message, 'error: an error');
});

test("the chunks' id and model are the response's id and model, the last non-empty ones; none named, none given", () => {
  const responseOf = (chunks: unknown[]) => {
    const stream = new OpenAiStream(() => undefined, null);
    for (const chunk of chunks) stream.event({ data: JSON.stringify(chunk), event: undefined, id: undefined });
    stream.event({ data: '[DONE]', event: undefined, id: undefined });
    return stream.response();
  };
  const delta = (content: string, extra: Record<string, unknown> = {}) => ({ choices: [{ index: 0, delta: { content } }], ...extra });
  const named = responseOf([
    delta('he', { id: 'chatcmpl-1', model: 'gpt-4o-mini-2024-07-18' }),
    delta('y', { id: '', model: '' }),
    { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  ]);
  assert.deepEqual([named.responseId, named.responseModel, named.text], ['chatcmpl-1', 'gpt-4o-mini-2024-07-18', 'hey']);
  const unnamed = responseOf([delta('hey'), { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]);
  assert.equal('responseId' in unnamed, false);
  assert.equal('responseModel' in unnamed, false);
});
