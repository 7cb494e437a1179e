import assert from 'node:assert/strict';
import test from 'node:test';
import { ARTIFACT_ID, endsTaskStream, METHOD, messageText, partsText, type TaskState, taskStreamEndOptions } from '../src/index.js';
import { MESSAGE_TEXT_JOINER } from '../src/message-text.js';

test('a task stream ends on a terminal state, and on input-required only when asked to', () => {
  const ends = (state: TaskState, endsOnInputRequired: boolean) => endsTaskStream(state, { endsOnInputRequired });
  for (const state of ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED', 'TASK_STATE_CANCELED'] as const) {
    assert.equal(ends(state, false), true, state);
    assert.equal(ends(state, true), true, state);
  }
  for (const state of ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED'] as const) {
    assert.equal(ends(state, false), false, state);
    assert.equal(ends(state, true), false, state);
  }
  assert.equal(ends('TASK_STATE_INPUT_REQUIRED', true), true);
  assert.equal(ends('TASK_STATE_INPUT_REQUIRED', false), false);
});

test('only SendStreamingMessage ends at an input request', () => {
  assert.deepEqual(taskStreamEndOptions(METHOD.SendStreamingMessage), { endsOnInputRequired: true });
  assert.deepEqual(taskStreamEndOptions(METHOD.SubscribeToTask), { endsOnInputRequired: false });
  assert.deepEqual(taskStreamEndOptions(METHOD.WatchSession), { endsOnInputRequired: false });
});

test('the artifact ids are the seed spellings', () => {
  assert.deepEqual({ ...ARTIFACT_ID }, { response: 'response', prompt: 'prompt', residue: 'residue' });
});

test("a message's text is its text parts in order, joined by a newline", () => {
  assert.equal(MESSAGE_TEXT_JOINER, '\n');
  assert.equal(messageText({ parts: [{ text: 'one' }, { data: { a: 1 } }, { text: 'two' }, { url: 'http://x' }, { text: '' }] }), 'one\ntwo\n');
  assert.equal(messageText({ parts: [{ data: 1 }] }), '');
  assert.equal(messageText(undefined), '');
  assert.equal(messageText(null), '');
  assert.equal(partsText([{ text: 'a' }]), 'a');
  assert.equal(partsText(undefined), '');
});
