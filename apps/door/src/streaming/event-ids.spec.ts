import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHUNK_START, EventIdCounters, INPUT_WAIT_START, QUEUED_CANCEL_START } from './event-ids.js';

test('the task counter starts at 0 for every task and rises by one per frame', () => {
  const ids = new EventIdCounters();
  assert.deepEqual([ids.nextTask('a'), ids.nextTask('a'), ids.nextTask('b'), ids.nextTask('a')], [0n, 1n, 0n, 2n]);
});

test('chunks share one run of numbers with the task’s status and artifact frames around each inference call', () => {
  const ids = new EventIdCounters();
  assert.equal(ids.nextTask('a'), 0n); // inference turn 1
  ids.inferenceStarts('a');
  assert.deepEqual([ids.nextChunk('a'), ids.nextChunk('a')], [1n, 2n]);
  ids.inferenceEnds('a');
  assert.equal(ids.nextChunk('a'), 3n, 'a tool’s chunks continue from the call’s last value');
  assert.equal(ids.nextTask('a'), 3n, 'and the artifact that follows them is numbered from the same value (seed 001)');
});

test('each task keeps its own chunk counter: one task’s inference never renumbers another’s chunks', () => {
  const ids = new EventIdCounters();
  ids.nextTask('a');
  ids.inferenceStarts('a');
  assert.equal(ids.nextChunk('a'), 1n);
  ids.nextTask('b');
  ids.nextTask('b');
  ids.inferenceStarts('b');
  assert.equal(ids.nextChunk('b'), 2n);
  assert.deepEqual([ids.nextChunk('a'), ids.nextChunk('a')], [2n, 3n], 'a’s chunks go on where they were, not where b set them');
  ids.inferenceEnds('a');
  ids.inferenceEnds('b');
  assert.deepEqual([ids.nextTask('a'), ids.nextTask('b')], [4n, 3n]);
});

test('a chunk outside any inference call starts at the chunk counter’s seed value', () => {
  assert.equal(new EventIdCounters().nextChunk('x'), CHUNK_START);
});

test('every input wait starts its counter afresh at the seed’s value', () => {
  const ids = new EventIdCounters();
  assert.equal(ids.inputWaitStarts('a'), INPUT_WAIT_START);
  assert.equal(ids.nextInputWait('a'), INPUT_WAIT_START + 1n);
  assert.equal(ids.inputWaitStarts('a'), INPUT_WAIT_START);
  assert.equal(ids.nextInputWait('a'), INPUT_WAIT_START + 1n);
});

test('the queued-cancel counter runs once per session, across tasks', () => {
  const ids = new EventIdCounters();
  assert.deepEqual([ids.nextQueuedCancel(), ids.nextQueuedCancel()], [QUEUED_CANCEL_START, QUEUED_CANCEL_START + 1n]);
});

test('forget drops a task’s counters: a reused id starts from 0 again', () => {
  const ids = new EventIdCounters();
  ids.nextTask('a');
  ids.inferenceStarts('a');
  ids.nextChunk('a');
  ids.forget('a');
  assert.equal(ids.nextTask('a'), 0n);
  assert.equal(ids.nextChunk('a'), CHUNK_START);
});
