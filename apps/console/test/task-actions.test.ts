import { A2AError } from '@murmur/client';
import { describe, expect, it, vi } from 'vitest';
import { TaskActions } from '../src/lib/tasks/task-actions.svelte';
import { T1, T2, task } from './support/events';
import { fakeClient } from './support/fake-client';

describe('TaskActions', () => {
  it('replies (answered at once) and cancels the task it is given, and says so', async () => {
    const { client } = fakeClient();
    const onDone = vi.fn();
    client.reply.mockResolvedValue(task(T1, 'TASK_STATE_WORKING'));
    client.cancelTask.mockResolvedValue(task(T2, 'TASK_STATE_CANCELED'));
    const actions = new TaskActions(() => client, { onDone });
    expect(await actions.sendReply(T1, 'main')).toBe(true);
    expect(client.reply).toHaveBeenCalledWith(T1, 'main', { returnImmediately: true });
    expect(actions.replyTarget).toBe(T1);
    expect(await actions.cancelTask(T2)).toBe(true);
    expect(client.cancelTask).toHaveBeenCalledWith(T2);
    expect(actions.cancelTarget).toBe(T2);
    expect(onDone).toHaveBeenCalledTimes(2);
  });

  it('keeps a refusal in words for the task it was for; reset() forgets it', async () => {
    const { client } = fakeClient();
    const onProblem = vi.fn();
    client.cancelTask.mockRejectedValue(A2AError.from({ code: -32002, message: 'Task cannot be canceled' }));
    const actions = new TaskActions(() => client, { onProblem });
    expect(await actions.cancelTask(T1)).toBe(false);
    expect(actions.cancel.problem).not.toBeNull();
    expect(onProblem).toHaveBeenCalledTimes(1);
    actions.reset();
    expect(actions.cancel.problem).toBeNull();
    expect(actions.cancelTarget).toBeNull();
  });
});
