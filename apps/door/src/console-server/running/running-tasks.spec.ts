import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamDataEvent } from '@murmur/client';
import { type MurmurFrame, RUNNING_TEXT_MAX, STREAM_EXTENSION_URI, type TaskState } from '@murmur/protocol';
import { createdAtOfId, RunningTasks } from './running-tasks.js';

const AT = '2026-12-01T10:00:00.000Z';
const id = (n: number) => `tsk_019ad${String(n).padStart(27, '0')}`;

function status(taskId: string, state: TaskState, text?: string): StreamDataEvent {
  const message = text === undefined ? undefined : { messageId: 'msg_x', role: 'ROLE_AGENT' as const, parts: [{ text }] };
  return {
    kind: 'status',
    id: '1',
    taskId,
    frame: null,
    response: { statusUpdate: { taskId, contextId: 'ctx_a', status: { state, timestamp: AT, ...(message ? { message } : {}) } } },
  };
}

function frame(taskId: string, body: MurmurFrame): StreamDataEvent {
  return {
    kind: 'frame',
    id: '2',
    taskId,
    frame: body,
    response: {
      statusUpdate: { taskId, contextId: 'ctx_a', status: { state: 'TASK_STATE_WORKING', timestamp: AT }, metadata: { [STREAM_EXTENSION_URI]: body as never } },
    },
  };
}

test('the activity follows the stream: queued, turn, tool, back to the turn, input, gone at the end', () => {
  const tasks = new RunningTasks();
  const t = id(1);
  tasks.apply(status(t, 'TASK_STATE_SUBMITTED'));
  assert.deepEqual(tasks.view().tasks[0].activity, { kind: 'queued' });
  tasks.apply(status(t, 'TASK_STATE_WORKING', 'inference turn 2'));
  assert.deepEqual(tasks.view().tasks[0].activity, { kind: 'turn', turn: 2 });
  tasks.apply(frame(t, { frame: 'tool-call-started', toolCallId: 'call_1', toolName: 'bash', input: {} }));
  assert.deepEqual(tasks.view().tasks[0].activity, { kind: 'tool', tool: 'bash', toolCallId: 'call_1', turn: 2, startedAt: AT });
  // Text chunks change nothing.
  assert.equal(tasks.apply(frame(t, { frame: 'text', text: 'hello', final: false })), false);
  const artifact = {
    toolName: 'bash',
    content: '',
    fenceSource: 'tool:bash',
    toolCallId: 'call_1',
    isError: false,
    durationMs: 1,
    exitCode: 0,
    truncated: false,
  };
  tasks.apply(frame(t, { frame: 'artifact', artifact } as MurmurFrame));
  assert.deepEqual(tasks.view().tasks[0].activity, { kind: 'turn', turn: 2 });
  tasks.apply(status(t, 'TASK_STATE_WORKING', 'compacting the conversation'));
  assert.deepEqual(tasks.view().tasks[0].activity, { kind: 'status', text: 'compacting the conversation' });
  tasks.apply(status(t, 'TASK_STATE_INPUT_REQUIRED', 'x'.repeat(1000)));
  const waiting = tasks.view().tasks[0].activity;
  assert.equal(waiting.kind === 'input' && waiting.prompt?.length, RUNNING_TEXT_MAX);
  assert.equal(tasks.apply(status(t, 'TASK_STATE_COMPLETED', 'done')), true);
  assert.equal(tasks.size, 0);
});

test('at most `max` tasks are followed; past it the table says it is truncated', () => {
  const tasks = new RunningTasks(3);
  for (let n = 1; n <= 5; n += 1) tasks.apply(status(id(n), 'TASK_STATE_WORKING', 'inference turn 1'));
  assert.equal(tasks.size, 3);
  const view = tasks.view(2);
  assert.equal(view.truncated, true);
  assert.deepEqual(view.counts, { TASK_STATE_WORKING: 3 });
  assert.deepEqual(
    view.tasks.map((t) => t.taskId),
    [id(1), id(2)],
  );
  assert.equal(view.moreTasks, 1);
  // A seed starts again from what the door lists.
  tasks.seed([
    {
      id: id(4),
      contextId: 'ctx_a',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: AT },
      artifacts: [{ artifactId: 'prompt', parts: [{ text: 'Why?' }] }],
    },
  ]);
  assert.equal(tasks.view().truncated, false);
  assert.deepEqual(
    tasks.view().tasks.map((t) => [t.taskId, t.activity]),
    [[id(4), { kind: 'input', prompt: 'Why?' }]],
  );
});

test('waiting for input is shown first', () => {
  const tasks = new RunningTasks();
  tasks.apply(status(id(1), 'TASK_STATE_WORKING', 'inference turn 1'));
  tasks.apply(status(id(2), 'TASK_STATE_INPUT_REQUIRED', 'Which?'));
  assert.deepEqual(
    tasks.view().tasks.map((t) => t.taskId),
    [id(2), id(1)],
  );
});

test('a task id tells its creation time (UUIDv7)', () => {
  assert.equal(createdAtOfId('tsk_019ad8a1b2c37000800000000000000a'), new Date(0x019ad8a1b2c3).toISOString());
  assert.equal(createdAtOfId('not-an-id'), null);
});
