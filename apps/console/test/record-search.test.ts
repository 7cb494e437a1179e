import { describe, expect, it, vi } from 'vitest';
import { RecordSearch } from '../src/lib/records/record-search.svelte';
import type { TaskFilters } from '../src/lib/tasks/task-list.svelte';
import { useConsoleFetch } from './support/console-fetch';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const tasks = [{ taskId: 'tsk_a', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED', statusText: null, updatedAt: '2026-12-01T10:00:00.000Z' }];
const filters: TaskFilters = { query: 'kite', state: 'TASK_STATE_COMPLETED', contextId: '', changedSince: '', pageSize: 10 };

describe('RecordSearch', () => {
  it('reads the door’s own session from its record plane, with the door token, and searches it there', async () => {
    const asked: { url: string; auth: string | null }[] = [];
    const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      asked.push({ url: String(url), auth: new Headers(init?.headers).get('authorization') });
      if (String(url) === '/api/door/10.0.0.5:4000/resources/records/sessions')
        return json({ sessions: [{ sessionId: 'ses_door', url: 'http://10.0.0.5:4000', state: 'live' }] });
      return json({ session: {}, tasks, total: 3, nextCursor: '1' });
    });
    useConsoleFetch(fetch);
    const records = new RecordSearch('10.0.0.5:4000', { door: () => ({ key: '10.0.0.5:4000', token: 'mur_t' }) });
    const page = await records.search(filters, '', new AbortController().signal);
    expect(records.sessionId).toBe('ses_door');
    expect(records.from).toBe('door');
    expect(asked[1]).toEqual({
      url: '/api/door/10.0.0.5:4000/resources/records/sessions/ses_door/tasks?q=kite&cursor=0&state=TASK_STATE_COMPLETED&limit=10',
      auth: 'Bearer mur_t',
    });
    expect(page).toEqual({
      rows: [{ id: 'tsk_a', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED', statusText: '', changedAt: '2026-12-01T10:00:00.000Z' }],
      nextPageToken: '1',
      totalSize: 3,
    });
  });

  it('a door that does not answer: the session the records on this host name for its address, searched there', async () => {
    const asked: string[] = [];
    const fetch = vi.fn(async (url: string | URL | Request) => {
      asked.push(String(url));
      if (String(url).startsWith('/api/door/')) return json({ error: 'door_unreachable', message: 'gone' }, 502);
      if (String(url) === '/api/records/sessions') {
        const sessions = [
          { sessionId: 'ses_old', url: 'http://127.0.0.1:1', state: 'ended' },
          { sessionId: 'ses_live', url: 'http://127.0.0.1:1', state: 'live' },
          { sessionId: 'ses_other', url: 'http://127.0.0.1:2', state: 'live' },
        ];
        return json({ sessions });
      }
      return json({ session: {}, tasks, total: 3, nextCursor: '1' });
    });
    useConsoleFetch(fetch);
    const records = new RecordSearch('127.0.0.1:1');
    await records.search(filters, '', new AbortController().signal);
    expect(records.sessionId).toBe('ses_live');
    expect(records.from).toBe('console');
    expect(asked).toEqual([
      '/api/door/127.0.0.1:1/resources/records/sessions',
      '/api/records/sessions',
      '/api/records/sessions/ses_live/tasks?q=kite&cursor=0&state=TASK_STATE_COMPLETED&limit=10',
    ]);
  });

  it('a held door is not asked: only this host’s records are read', async () => {
    const asked: string[] = [];
    const fetch = vi.fn(async (url: string | URL | Request) => {
      asked.push(String(url));
      return json({ sessions: [] });
    });
    useConsoleFetch(fetch);
    const records = new RecordSearch('127.0.0.1:9', { door: () => null });
    expect(await records.search({ query: 'x', state: '', contextId: '', changedSince: '', pageSize: 25 }, '', new AbortController().signal)).toEqual({
      rows: [],
      nextPageToken: '',
      totalSize: 0,
    });
    expect(records.sessionId).toBeNull();
    expect(asked).toEqual(['/api/records/sessions']);
  });
});
