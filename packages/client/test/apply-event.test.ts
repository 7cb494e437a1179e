import assert from 'node:assert/strict';
import test from 'node:test';
import type { StreamResponse, Task } from '@murmur/protocol';
import { applyStreamEvent, type StreamDataEvent } from '../src/index.js';
import { artifact, carrier, frameMessage, status, task } from './support/wire.js';

// Builds the typed event a stream would yield for a StreamResponse (only the fields applyStreamEvent reads).
function event(response: StreamResponse, kind: StreamDataEvent['kind'], taskId: string | null): StreamDataEvent {
  return { kind, id: null, taskId, response, frame: kind === 'frame' ? { frame: 'text', text: 'x', final: false } : null } as StreamDataEvent;
}

test('a task event replaces the snapshot, and starts one from null', () => {
  const fresh = task('tsk_1', 'TASK_STATE_WORKING');
  assert.equal(applyStreamEvent(null, event({ task: fresh }, 'task', 'tsk_1')), fresh);
  assert.equal(applyStreamEvent(task('tsk_1', 'TASK_STATE_SUBMITTED'), event({ task: fresh }, 'task', 'tsk_1')), fresh);
});

test('a status update replaces the status and nothing else; the old snapshot is not mutated', () => {
  const before: Task = { ...task('tsk_1', 'TASK_STATE_WORKING'), artifacts: [{ artifactId: 'a', parts: [] }] };
  const after = applyStreamEvent(before, event(status('tsk_1', 'TASK_STATE_INPUT_REQUIRED', 'Which branch?'), 'status', 'tsk_1'));
  assert.equal(after.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(after.status.message?.parts[0]?.text, 'Which branch?');
  assert.equal(after.artifacts, before.artifacts);
  assert.equal(before.status.state, 'TASK_STATE_WORKING');
});

test('an artifact update adds, replaces by id, or appends parts', () => {
  let t: Task = task('tsk_1', 'TASK_STATE_WORKING');
  t = applyStreamEvent(t, event(artifact('tsk_1', 'four'), 'artifact', 'tsk_1'));
  assert.deepEqual(
    t.artifacts?.map((a) => a.parts.map((p) => p.text)),
    [['four']],
  );
  t = applyStreamEvent(t, event(artifact('tsk_1', 'five'), 'artifact', 'tsk_1'));
  assert.deepEqual(
    t.artifacts?.map((a) => a.parts.map((p) => p.text)),
    [['five']],
  );
  const appended: StreamResponse = {
    artifactUpdate: { taskId: 'tsk_1', contextId: 'ctx_1', append: true, artifact: { artifactId: 'response', parts: [{ text: ' and six' }] } },
  };
  t = applyStreamEvent(t, event(appended, 'artifact', 'tsk_1'));
  assert.deepEqual(
    t.artifacts?.map((a) => a.parts.map((p) => p.text)),
    [['five', ' and six']],
  );
  assert.equal(t.artifacts?.[0]?.name, 'response');
});

test("frames, messages and other tasks' events leave the snapshot as it is", () => {
  const before = task('tsk_1', 'TASK_STATE_WORKING');
  assert.equal(applyStreamEvent(before, event(carrier('tsk_1', { frame: 'text', text: 'x', final: false }, 'TASK_STATE_COMPLETED'), 'frame', 'tsk_1')), before);
  assert.equal(applyStreamEvent(before, event(frameMessage({ frame: 'capsule-closed' } as never), 'frame', null)), before);
  assert.equal(applyStreamEvent(before, event(status('tsk_2', 'TASK_STATE_FAILED'), 'status', 'tsk_2')), before);
  assert.equal(applyStreamEvent(before, event({ task: task('tsk_2', 'TASK_STATE_FAILED') }, 'task', 'tsk_2')), before);
  assert.equal(applyStreamEvent(null, event(status('tsk_1', 'TASK_STATE_FAILED'), 'status', 'tsk_1')), null);
});
