import { describe, expect, it, vi } from 'vitest';
import { RecordSearch } from '../src/lib/record-search.svelte';

describe('RecordSearch', () => {
  it('finds the door’s session in this host’s records and searches it with the table’s filters', async () => {
    const asked: string[] = [];
    const fetch = vi.fn(async (url: string | URL | Request) => {
      asked.push(String(url));
      if (String(url) === '/api/records/sessions') {
        const sessions = [
          { sessionId: 'ses_old', url: 'http://127.0.0.1:1', state: 'ended' },
          { sessionId: 'ses_live', url: 'http://127.0.0.1:1', state: 'live' },
          { sessionId: 'ses_other', url: 'http://127.0.0.1:2', state: 'live' },
        ];
        return new Response(JSON.stringify({ sessions }));
      }
      const tasks = [{ taskId: 'tsk_a', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED', statusText: null, updatedAt: '2026-12-01T10:00:00.000Z' }];
      return new Response(JSON.stringify({ session: {}, tasks, total: 3, nextCursor: '1' }));
    });
    const records = new RecordSearch('127.0.0.1:1', { fetch });
    const page = await records.search({ query: 'kite', state: 'TASK_STATE_COMPLETED', contextId: '', changedSince: '', pageSize: 10 }, '', new AbortController().signal);
    expect(records.sessionId).toBe('ses_live');
    expect(asked[1]).toBe('/api/records/sessions/ses_live/tasks?q=kite&cursor=0&state=TASK_STATE_COMPLETED&limit=10');
    expect(page).toEqual({ rows: [{ id: 'tsk_a', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED', statusText: '', changedAt: '2026-12-01T10:00:00.000Z' }], nextPageToken: '1', totalSize: 3 });
  });

  it('searches nothing for a door whose records are elsewhere', async () => {
    const records = new RecordSearch('127.0.0.1:9', { fetch: async () => new Response(JSON.stringify({ sessions: [] })) });
    expect(await records.search({ query: 'x', state: '', contextId: '', changedSince: '', pageSize: 25 }, '', new AbortController().signal)).toEqual({ rows: [], nextPageToken: '', totalSize: 0 });
    expect(records.sessionId).toBeNull();
  });
});
