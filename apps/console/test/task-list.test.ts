import type { ListTasksResponse } from '@murmur/protocol';
import { HttpRefusalError } from '@murmur/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_FILTERS, listParams, TaskList } from '../src/lib/tasks/task-list.svelte';
import { task } from './support/events';
import { fakeClient } from './support/fake-client';

const page = (ids: string[], nextPageToken: string, totalSize = 7): ListTasksResponse => ({
  tasks: ids.map((id) => task(id, 'TASK_STATE_COMPLETED')),
  nextPageToken,
  pageSize: ids.length,
  totalSize,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('listParams', () => {
  it('sends only the filters that are set', () => {
    expect(listParams(DEFAULT_FILTERS, '')).toEqual({ pageSize: 25 });
    expect(listParams({ query: '', state: 'TASK_STATE_WORKING', contextId: ' ctx_1 ', changedSince: '2026-11-29T15:00:00.000Z', pageSize: 10 }, 'tok')).toEqual(
      {
        pageSize: 10,
        pageToken: 'tok',
        status: 'TASK_STATE_WORKING',
        contextId: 'ctx_1',
        statusTimestampAfter: '2026-11-29T15:00:00.000Z',
      },
    );
  });
});

describe('TaskList', () => {
  it('pages forward with nextPageToken and back through the stack of tokens', async () => {
    const { client } = fakeClient();
    client.listTasks
      .mockResolvedValueOnce(page(['tsk_1', 'tsk_2'], 'p2'))
      .mockResolvedValueOnce(page(['tsk_3', 'tsk_4'], 'p3'))
      .mockResolvedValueOnce(page(['tsk_5'], ''))
      .mockResolvedValueOnce(page(['tsk_3', 'tsk_4'], 'p3'));
    const list = new TaskList(() => client);
    await list.apply({ ...DEFAULT_FILTERS, pageSize: 2 });
    expect(list.pageNumber).toBe(1);
    expect(list.hasPrevious).toBe(false);
    expect(list.hasNext).toBe(true);
    await list.next();
    await list.next();
    expect(list.pageNumber).toBe(3);
    expect(list.hasNext).toBe(false);
    expect(list.page?.totalSize).toBe(7);
    await list.next(); // no next page: nothing asked
    await list.previous();
    expect(list.pageNumber).toBe(2);
    expect(client.listTasks.mock.calls.map(([params]) => params.pageToken)).toEqual([undefined, 'p2', 'p3', 'p2']);
  });

  it('starts again from the first page when the filters change', async () => {
    const { client } = fakeClient();
    client.listTasks.mockResolvedValue(page(['tsk_1'], 'p2'));
    const list = new TaskList(() => client);
    await list.load();
    await list.next();
    expect(list.pageNumber).toBe(2);
    await list.apply({ ...DEFAULT_FILTERS, state: 'TASK_STATE_FAILED' });
    expect(list.pageNumber).toBe(1);
    expect(client.listTasks.mock.lastCall?.[0]).toEqual({ pageSize: 25, status: 'TASK_STATE_FAILED' });
  });

  it('shows only the newest answer when requests overlap', async () => {
    const { client } = fakeClient();
    let releaseFirst: (v: ListTasksResponse) => void = () => {};
    client.listTasks.mockImplementationOnce(() => new Promise((resolve) => (releaseFirst = resolve))).mockResolvedValueOnce(page(['tsk_new'], ''));
    const list = new TaskList(() => client);
    const first = list.load();
    await list.load();
    releaseFirst(page(['tsk_old'], ''));
    await first;
    expect(list.page?.rows.map((t) => t.id)).toEqual(['tsk_new']);
    expect(list.loading).toBe(false);
  });

  it('keeps the problem in words and reports it (a 401 opens the token prompt)', async () => {
    const { client } = fakeClient();
    client.listTasks.mockRejectedValue(new HttpRefusalError({ status: 401, wwwAuthenticate: null, code: 'unauthenticated', message: 'needs a token' }));
    const onProblem = vi.fn();
    const list = new TaskList(() => client, { context: { door: '127.0.0.1:1' }, onProblem });
    await list.load();
    expect(list.problem).toMatchObject({ title: 'This door needs a token', needsToken: true });
    expect(onProblem).toHaveBeenCalledWith(expect.objectContaining({ needsToken: true }));
  });

  it('re-lists once after a burst of changes (debounced), and at least every maxWait while they keep coming', async () => {
    vi.useFakeTimers();
    const { client } = fakeClient();
    client.listTasks.mockResolvedValue(page([], ''));
    const list = new TaskList(() => client, { debounceMs: 400, maxWaitMs: 1000 });
    for (let i = 0; i < 10; i++) list.notifyChange();
    await vi.advanceTimersByTimeAsync(399);
    expect(client.listTasks).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(client.listTasks).toHaveBeenCalledTimes(1);

    // A steady flow every 300 ms never goes quiet for 400 ms; maxWait still re-lists.
    for (let t = 0; t < 1200; t += 300) {
      list.notifyChange();
      await vi.advanceTimersByTimeAsync(300);
    }
    expect(client.listTasks).toHaveBeenCalledTimes(2);
    list.dispose();
  });

  it('changes the page label together with its rows, not when the request leaves', async () => {
    const { client } = fakeClient();
    let answer: (value: ListTasksResponse) => void = () => {};
    client.listTasks.mockResolvedValueOnce(page(['tsk_1', 'tsk_2'], 'p2')).mockImplementationOnce(
      () =>
        new Promise<ListTasksResponse>((resolve) => {
          answer = resolve;
        }),
    );
    const list = new TaskList(() => client);
    await list.apply({ ...DEFAULT_FILTERS, pageSize: 2 });
    const next = list.next();
    expect(list.pageNumber).toBe(1);
    expect(list.page?.rows.map((t) => t.id)).toEqual(['tsk_1', 'tsk_2']);
    answer(page(['tsk_3'], ''));
    await next;
    expect(list.pageNumber).toBe(2);
    expect(list.shownPageSize).toBe(2);
    expect(list.page?.rows.map((t) => t.id)).toEqual(['tsk_3']);
  });

  it('clear() forgets the rows; a refused token clears them too', async () => {
    const { client } = fakeClient();
    client.listTasks.mockResolvedValueOnce(page(['tsk_1'], ''));
    const list = new TaskList(() => client);
    await list.load();
    expect(list.page).not.toBeNull();
    list.clear();
    expect(list.page).toBeNull();
    expect(list.pageNumber).toBe(1);
    client.listTasks.mockResolvedValueOnce(page(['tsk_1'], ''));
    await list.load();
    expect(list.page).not.toBeNull();
    client.listTasks.mockRejectedValueOnce(new HttpRefusalError({ status: 401, wwwAuthenticate: 'Bearer', code: 'unauthenticated', message: 'token refused' }));
    await list.load();
    expect(list.page).toBeNull();
    expect(list.problem?.needsToken).toBe(true);
  });
});

describe('TaskList search', () => {
  it('reads a query through the search seam (the record API), paging by its cursor', async () => {
    const { client } = fakeClient();
    const search = vi.fn(async (_filters: unknown, token: string) => ({
      rows: [{ id: token === '' ? 'tsk_a' : 'tsk_b', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED' as const, statusText: '', changedAt: null }],
      nextPageToken: token === '' ? '1' : '',
      totalSize: 2,
    }));
    const list = new TaskList(() => client, { search });
    await list.apply({ ...DEFAULT_FILTERS, query: 'kite', pageSize: 10 });
    expect(client.listTasks).not.toHaveBeenCalled();
    expect(search.mock.calls[0][0]).toMatchObject({ query: 'kite' });
    expect(list.page?.rows.map((r) => r.id)).toEqual(['tsk_a']);
    await list.next();
    expect(list.page?.rows.map((r) => r.id)).toEqual(['tsk_b']);
    expect(list.shownPages.tokens).toEqual(['1']);
  });
});
