import { A2AError } from '@murmur/client';
import { describe, expect, it } from 'vitest';
import { TaskDetail } from '../src/lib/tasks/task-detail.svelte';
import { artifact, connection, status, T1, task, taskEvent } from './support/events';
import { fakeClient, settle } from './support/fake-client';

const notCancelable = () =>
  A2AError.from({
    code: -32002,
    message: 'Task cannot be canceled',
    data: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'TASK_NOT_CANCELABLE',
        domain: 'a2a-protocol.org',
        metadata: { taskId: T1, state: 'TASK_STATE_COMPLETED' },
      },
    ],
  });

describe('TaskDetail', () => {
  it('reads a finished task and opens no stream', async () => {
    const { client, streams } = fakeClient();
    client.getTask.mockResolvedValue(task(T1, 'TASK_STATE_COMPLETED', { artifacts: [{ artifactId: 'response', parts: [{ text: 'four' }] }] }));
    const detail = new TaskDetail(() => client, T1, { refetchDelayMs: 0 });
    await detail.load();
    expect(detail.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(detail.isTerminal).toBe(true);
    expect(streams).toHaveLength(0);
    expect(detail.feed.state).toBe('idle');
  });

  it('follows a running task with SubscribeToTask and murmur frames, keeping the task fresh', async () => {
    const { client, streams } = fakeClient();
    client.getTask
      .mockResolvedValueOnce(task(T1, 'TASK_STATE_WORKING'))
      .mockResolvedValue(task(T1, 'TASK_STATE_COMPLETED', { artifacts: [{ artifactId: 'response', parts: [{ text: 'four' }] }] }));
    const detail = new TaskDetail(() => client, T1, { refetchDelayMs: 0 });
    await detail.load();
    expect(client.subscribeToTask).toHaveBeenCalledWith(T1, expect.objectContaining({ murmurFrames: true }));
    const channel = streams[0].channel;
    channel.push(connection('open'), taskEvent(task(T1, 'TASK_STATE_WORKING')), artifact(T1, 'response', 'four'));
    await settle();
    expect(detail.feed.state).toBe('live');
    expect(detail.task?.artifacts?.[0].parts[0].text).toBe('four');
    channel.push(status(T1, 'TASK_STATE_COMPLETED', 'task completed'), connection('closed', { reason: 'natural-end' }));
    channel.end();
    await settle();
    await settle();
    expect(detail.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(detail.feed.state).toBe('closed');
    expect(client.getTask).toHaveBeenCalledTimes(2);
    detail.dispose();
  });

  it('cancels, showing the canceled task', async () => {
    const { client } = fakeClient();
    client.getTask.mockResolvedValue(task(T1, 'TASK_STATE_WORKING'));
    client.cancelTask.mockResolvedValue(task(T1, 'TASK_STATE_CANCELED'));
    const detail = new TaskDetail(() => client, T1);
    await detail.cancelTask();
    expect(detail.cancel.result?.status.state).toBe('TASK_STATE_CANCELED');
    expect(detail.task?.status.state).toBe('TASK_STATE_CANCELED');
    detail.dispose();
  });

  it('shows the -32002 reason when the task had already ended, and reads the task again', async () => {
    const { client } = fakeClient();
    client.cancelTask.mockRejectedValue(notCancelable());
    client.getTask.mockResolvedValue(task(T1, 'TASK_STATE_COMPLETED'));
    const detail = new TaskDetail(() => client, T1);
    await detail.cancelTask();
    expect(detail.cancel.problem).toMatchObject({ kind: 'a2a', code: -32002, title: 'Task cannot be canceled' });
    expect(detail.cancel.problem?.detail).toContain('state: TASK_STATE_COMPLETED');
    await settle();
    expect(detail.task?.status.state).toBe('TASK_STATE_COMPLETED');
    detail.dispose();
  });

  it('replies to a task waiting for input (answered as soon as the door accepts it)', async () => {
    const { client, streams } = fakeClient();
    client.getTask.mockResolvedValue(task(T1, 'TASK_STATE_INPUT_REQUIRED', { artifacts: [{ artifactId: 'prompt', parts: [{ text: 'Which branch?' }] }] }));
    client.reply.mockResolvedValue(task(T1, 'TASK_STATE_WORKING'));
    const detail = new TaskDetail(() => client, T1);
    await detail.load();
    expect(detail.waitsForInput).toBe(true);
    expect(await detail.sendReply('main')).toBe(true);
    expect(client.reply).toHaveBeenCalledWith(T1, 'main', { returnImmediately: true });
    expect(detail.task?.status.state).toBe('TASK_STATE_WORKING');
    expect(streams).toHaveLength(1);
    detail.dispose();
  });

  it('opens no new stream when the task ended before the reply was answered', async () => {
    const { client, streams } = fakeClient();
    client.getTask.mockResolvedValueOnce(task(T1, 'TASK_STATE_INPUT_REQUIRED')).mockResolvedValue(task(T1, 'TASK_STATE_COMPLETED'));
    let answer: (t: ReturnType<typeof task>) => void = () => {};
    client.reply.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    const detail = new TaskDetail(() => client, T1, { refetchDelayMs: 0 });
    await detail.load();
    const replied = detail.sendReply('main');
    // The stream shows the task resume and end before the reply's own answer (WORKING) arrives.
    streams[0].channel.push(connection('open'), status(T1, 'TASK_STATE_COMPLETED', 'task completed'), connection('closed', { reason: 'natural-end' }));
    streams[0].channel.end();
    await settle();
    answer(task(T1, 'TASK_STATE_WORKING'));
    expect(await replied).toBe(true);
    await settle();
    expect(streams).toHaveLength(1);
    expect(detail.feed.state).toBe('closed');
    expect(detail.task?.status.state).toBe('TASK_STATE_COMPLETED');
    detail.dispose();
  });

  it('reads a -32004 on SubscribeToTask (the task just ended) as the end of the stream, not a lost one', async () => {
    const { client, streams } = fakeClient();
    client.getTask.mockResolvedValueOnce(task(T1, 'TASK_STATE_WORKING')).mockResolvedValue(task(T1, 'TASK_STATE_COMPLETED'));
    const detail = new TaskDetail(() => client, T1, { refetchDelayMs: 0 });
    await detail.load();
    streams[0].channel.fail(A2AError.from({ code: -32004, message: 'Unsupported operation' }));
    await settle();
    await settle();
    expect(detail.feed.state).toBe('closed');
    expect(detail.feed.problem).toBeNull();
    expect(detail.task?.status.state).toBe('TASK_STATE_COMPLETED');
    detail.dispose();
  });

  it('says so when the door holds no such task', async () => {
    const { client } = fakeClient();
    client.getTask.mockRejectedValue(A2AError.from({ code: -32001, message: 'Task not found' }));
    const detail = new TaskDetail(() => client, 'tsk_nope');
    await detail.load();
    expect(detail.problem?.title).toMatch(/No task tsk_nope/);
  });
});
