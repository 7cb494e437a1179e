import assert from 'node:assert/strict';
import test from 'node:test';
import type { StreamDataEvent } from '../src/index.js';
import { DEDUPE_WINDOW, dedupeKey, dedupeKind, Deduper, readStreamEvent } from '../src/internal/stream-events.js';
import { artifact, carrier, frameMessage, status, task } from './support/wire.js';

// Seed 001, "Replay": a reconnecting client de-duplicates on the task id, the event type and the id together, not
// on the id alone; ids are labels, not a sequence.

function read(result: unknown, id: string | null): { event: StreamDataEvent; resultJson: string } {
  const got = readStreamEvent(JSON.stringify({ jsonrpc: '2.0', id: 1, result }), id, 1, 'murmur.WatchSession', null);
  assert.ok(got);
  return got;
}

test('the kind is status, artifact-update or the frame name, as docs/streaming.md names them', () => {
  assert.equal(dedupeKind(read({ task: task('tsk_a', 'TASK_STATE_WORKING') }, null).event), 'task');
  assert.equal(dedupeKind(read(status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), '0').event), 'status');
  assert.equal(dedupeKind(read(artifact('tsk_a', 'four'), '3').event), 'artifact-update');
  assert.equal(dedupeKind(read(carrier('tsk_a', { frame: 'text', text: 'fo', final: false }), '1').event), 'text');
  assert.equal(dedupeKind(read(carrier('tsk_a', { frame: 'thinking', text: 'hm', final: false }), '1').event), 'thinking');
  assert.equal(dedupeKind(read(frameMessage({ frame: 'capsule-closed' }), null).event), 'capsule-closed');
});

test('the key is (task id, kind, id); an event without an id has none', () => {
  const a = read(status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), '0').event;
  assert.equal(dedupeKey(a), 'tsk_a\u0000status\u00000');
  assert.equal(dedupeKey(read({ task: task('tsk_a', 'TASK_STATE_WORKING') }, null).event), null);
  assert.equal(dedupeKey(read(frameMessage({ frame: 'gap', firstAvailableId: '37' }), null).event), null);
});

test('the same id on another task or another kind is a different key: never drop on the id alone', () => {
  const keys = [
    read(status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), '0').event,
    read(status('tsk_b', 'TASK_STATE_WORKING', 'inference turn 1'), '0').event,
    read(artifact('tsk_a', 'four'), '0').event,
    read(carrier('tsk_a', { frame: 'text', text: 'x', final: false }), '0').event,
  ].map(dedupeKey);
  assert.equal(new Set(keys).size, 4);
  const dedupe = new Deduper();
  const events = [read(status('tsk_a', 'TASK_STATE_WORKING', 'inference turn 1'), '0'), read(status('tsk_b', 'TASK_STATE_WORKING', 'inference turn 1'), '0')];
  // Connection 1 sees tsk_a's 0; connection 2 replays it and brings tsk_b's 0, a different event with the same id.
  assert.equal(dedupe.isRepeat(dedupeKey(events[0]!.event)!, events[0]!.resultJson, 1), false);
  assert.equal(dedupe.isRepeat(dedupeKey(events[0]!.event)!, events[0]!.resultJson, 2), true);
  assert.equal(dedupe.isRepeat(dedupeKey(events[1]!.event)!, events[1]!.resultJson, 2), false);
});

test('a replay of an event delivered on an earlier connection is dropped', () => {
  const dedupe = new Deduper();
  const e = read(carrier('tsk_a', { frame: 'text', text: 'fo', final: false }), '4');
  assert.equal(dedupe.isRepeat(dedupeKey(e.event)!, e.resultJson, 1), false);
  assert.equal(dedupe.isRepeat(dedupeKey(e.event)!, e.resultJson, 2), true);
  assert.equal(dedupe.isRepeat(dedupeKey(e.event)!, e.resultJson, 3), true);
});

test('a key that comes back on the same connection is a new event (two input waits both count from 2^63-1)', () => {
  const dedupe = new Deduper();
  const first = read(status('tsk_a', 'TASK_STATE_INPUT_REQUIRED', 'Which branch?'), '9223372036854775807');
  const second = read(status('tsk_a', 'TASK_STATE_INPUT_REQUIRED', 'Which file?'), '9223372036854775807');
  assert.equal(dedupeKey(first.event), dedupeKey(second.event));
  assert.equal(dedupe.isRepeat(dedupeKey(first.event)!, first.resultJson, 1), false);
  assert.equal(dedupe.isRepeat(dedupeKey(second.event)!, second.resultJson, 1), false);
  // After a reconnect, the same label with another body is still a new event: the door replays byte for byte.
  const third = read(status('tsk_a', 'TASK_STATE_INPUT_REQUIRED', 'Which tag?'), '9223372036854775807');
  assert.equal(dedupe.isRepeat(dedupeKey(third.event)!, third.resultJson, 2), false);
  // … while a true replay of the first is dropped.
  assert.equal(dedupe.isRepeat(dedupeKey(first.event)!, first.resultJson, 2), true);
});

test('the window is bounded: only the most recent keys are remembered', () => {
  const dedupe = new Deduper(DEDUPE_WINDOW);
  for (let i = 0; i < DEDUPE_WINDOW + 100; i++) dedupe.isRepeat(`tsk_a\u0000status\u0000${i}`, `{"n":${i}}`, 1);
  assert.equal(dedupe.size, DEDUPE_WINDOW);
  // The oldest fell out; the newest are still known.
  assert.equal(dedupe.isRepeat('tsk_a\u0000status\u00000', '{"n":0}', 2), false);
  assert.equal(dedupe.isRepeat(`tsk_a\u0000status\u0000${DEDUPE_WINDOW + 99}`, `{"n":${DEDUPE_WINDOW + 99}}`, 2), true);
  assert.ok(DEDUPE_WINDOW >= 512, 'the window covers the door’s whole 512-event replay buffer');
});

test('events are classified by their StreamResponse member and murmur frame', () => {
  const t = read({ task: task('tsk_a', 'TASK_STATE_SUBMITTED') }, null).event;
  assert.equal(t.kind, 'task');
  assert.equal(t.taskId, 'tsk_a');
  const c = read(carrier('tsk_a', { frame: 'gap', firstAvailableId: '37' }), null).event;
  assert.equal(c.kind, 'frame');
  assert.deepEqual(c.frame, { frame: 'gap', firstAvailableId: '37' });
  const m = read(frameMessage({ frame: 'lagged', dropped: 12 }), null).event;
  assert.equal(m.kind, 'frame');
  assert.equal(m.taskId, null);
  const plain = read({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }, null).event;
  assert.equal(plain.kind, 'message');
  // Unknown members and unknown frames are ignored (seed 001, "Unknown frames and keys").
  assert.equal(readStreamEvent('{"jsonrpc":"2.0","id":1,"result":{"pushUpdate":{}}}', null, 1, 'm', null), null);
  assert.equal(readStreamEvent(JSON.stringify({ jsonrpc: '2.0', id: 1, result: carrier('tsk_a', { frame: 'weather' } as never) }), null, 1, 'm', null), null);
  // A harness capsule's two (transport: process) are known frames.
  const quota = read(carrier('tsk_a', { frame: 'quota', windows: [{ name: 'five-hour', used: 0.42 }] }), null).event;
  assert.equal(quota.kind, 'frame');
  assert.deepEqual(quota.frame, { frame: 'quota', windows: [{ name: 'five-hour', used: 0.42 }] });
  assert.equal(read(carrier('tsk_a', { frame: 'suggested-prompt', text: 'run the tests' }), null).event.kind, 'frame');
});

test('a data line that is not this request’s JSON-RPC response is an invalid-event StreamError; an error is its A2AError', () => {
  assert.throws(() => readStreamEvent('not json', null, 1, 'm', null), { name: 'StreamError', reason: 'invalid-event' });
  assert.throws(() => readStreamEvent('{"jsonrpc":"2.0","id":2,"result":{}}', null, 1, 'm', null), { name: 'StreamError', reason: 'invalid-event' });
  assert.throws(() => readStreamEvent('{"jsonrpc":"2.0","id":"1","result":{}}', null, 1, 'm', null), { name: 'StreamError', reason: 'invalid-event' });
  assert.throws(() => readStreamEvent('{"jsonrpc":"2.0","id":1,"result":7}', null, 1, 'm', null), { name: 'StreamError', reason: 'invalid-event' });
  assert.throws(() => readStreamEvent('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: x"}}', null, 1, 'm', null), {
    name: 'InternalError',
    code: -32603,
  });
});
