/**
 * The answer's id and model from a messages stream (docs/drivers.md, "Anthropic"; docs/records.md, the inference
 * record's call facts): `message_start`'s `message.id` and `message.model` become the response's responseId and
 * responseModel; a stream that names neither (or names them empty) gives neither.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnthropicStream } from './anthropic-stream.js';

function responseOf(events: unknown[]) {
  const stream = new AnthropicStream(() => undefined, null);
  for (const data of events) stream.event({ data: JSON.stringify(data), event: undefined, id: undefined });
  return stream.response();
}

const rest = [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
  { type: 'message_stop' },
];

test("message_start's id and model are the response's id and model", () => {
  const response = responseOf([
    { type: 'message_start', message: { id: 'msg_01XFD', model: 'claude-sonnet-4-5-20250929', usage: { input_tokens: 5 } } },
    ...rest,
  ]);
  assert.deepEqual([response.responseId, response.responseModel, response.text], ['msg_01XFD', 'claude-sonnet-4-5-20250929', 'hi']);
});

test('a stream that names no id or model (or empty ones) gives none: the keys are absent', () => {
  for (const message of [{ usage: { input_tokens: 5 } }, { id: '', model: '', usage: { input_tokens: 5 } }, { id: 7, model: null }]) {
    const response = responseOf([{ type: 'message_start', message }, ...rest]);
    assert.equal('responseId' in response, false, JSON.stringify(message));
    assert.equal('responseModel' in response, false, JSON.stringify(message));
  }
});
