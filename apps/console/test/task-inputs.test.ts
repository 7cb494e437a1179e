import { describe, expect, it, vi } from 'vitest';
import { TaskInputs } from '../src/lib/tasks/task-inputs.svelte';
import { TaskRecordView } from '../src/lib/records/task-record.svelte';
import { useConsoleFetch } from './support/console-fetch';

const summary = (taskId: string, input: string | null) => ({ taskId, input });
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('TaskInputs', () => {
  it('asks for every wanted id in one request per tick and keeps each input’s first line', async () => {
    const fetch = vi.fn(async () => json({ tasks: [summary('tsk_a', 'build the kite\nsecond line'), summary('tsk_b', null)] }));
    useConsoleFetch(fetch);
    const inputs = new TaskInputs();
    inputs.want(['tsk_a']);
    inputs.want(['tsk_b', 'tsk_c']);
    await settle();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String((fetch.mock.calls[0] as unknown[])[0])).toBe('/api/records/tasks?ids=tsk_a,tsk_b,tsk_c');
    expect(inputs.line('tsk_a')).toBe('build the kite');
    expect(inputs.line('tsk_b')).toBeNull();
    expect(inputs.line('tsk_c')).toBeUndefined();
    inputs.want(['tsk_a', 'tsk_c']);
    await settle();
    expect(fetch).toHaveBeenCalledTimes(1); // known, or asked less than 3 s ago
  });

  it('shows nothing when the record API fails', async () => {
    useConsoleFetch(async () => json({}, 500));
    const inputs = new TaskInputs();
    inputs.want(['tsk_a']);
    await settle();
    expect(inputs.line('tsk_a')).toBeUndefined();
  });
});

describe('TaskRecordView', () => {
  it('reads every page of a record, a short first page then longer ones', async () => {
    const pages = [
      { task: { taskId: 'tsk_a', durationMs: null }, entries: [{ kind: 'input', offsetMs: 0 }], nextCursor: '1', total: 2 },
      { task: { taskId: 'tsk_a', durationMs: null }, entries: [{ kind: 'tool-call', offsetMs: 40, durationMs: 200 }], nextCursor: null, total: 2 },
    ];
    const fetch = vi.fn(async () => json(pages.shift()));
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_a');
    await view.load();
    expect(view.entries.map((e) => e.kind)).toEqual(['input', 'tool-call']);
    // The first page short, so the trace draws sooner while the rest come.
    expect(fetch.mock.calls.map((call) => String((call as unknown[])[0]))).toEqual([
      '/api/records/tasks/tsk_a?cursor=0&limit=200',
      '/api/records/tasks/tsk_a?cursor=1&limit=1000',
    ]);
  });

  it('a task no records folder holds is missing, not a problem', async () => {
    useConsoleFetch(async () => json({ error: 'not_found' }, 404));
    const view = new TaskRecordView('tsk_a');
    await view.load();
    expect(view.missing).toBe(true);
    expect(view.problem).toBeNull();
  });

  it('takes the member tasks its call-member tool calls started, and theirs, from the record’s own answer, and nests them', async () => {
    const created = '2026-12-01T10:00:00.000Z';
    const call = (memberTaskId: string, member: string) => ({
      callId: `mcl_${member}`,
      member,
      memberTaskId,
      memberSessionId: 'ses_m',
      memberUrl: 'http://127.0.0.1:4100',
      status: 'completed',
      elapsedMs: 900,
      offers: 1,
    });
    const worker = {
      task: { taskId: 'tsk_w', createdAt: '2026-12-01T10:00:00.020Z', durationMs: 1200 },
      entries: [{ kind: 'tool-call', at: '2026-12-01T10:00:00.030Z', offsetMs: 10, durationMs: 5, memberCall: call('tsk_c', 'critic') }],
    };
    const critic = { task: { taskId: 'tsk_c', createdAt: '2026-12-01T10:00:00.040Z', durationMs: 100 }, entries: [] };
    const records: Record<string, unknown> = {
      // The server resolves the members' records and sends them with the caller's (ConsoleTaskRecordPage.members).
      tsk_a: {
        task: { taskId: 'tsk_a', createdAt: created, durationMs: 500 },
        entries: [{ kind: 'tool-call', at: created, offsetMs: 0, durationMs: 10, memberCall: call('tsk_w', 'worker') }],
        nextCursor: null,
        members: [worker, critic],
      },
    };
    const fetch = vi.fn(async (url: string | URL | Request) => {
      const id = /tasks\/(tsk_\w+)/.exec(String(url))?.[1] ?? '';
      return records[id] ? json(records[id]) : json({ error: 'not_found' }, 404);
    });
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_a');
    await view.load();
    expect([...view.members.keys()]).toEqual(['tsk_w', 'tsk_c']);
    expect(view.rows.map((r) => r.kind)).toEqual(['entry', 'member-task', 'member-entry', 'member-task']);
    // One request: no second round trip per member.
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('gathers the members each page of a long record carries', async () => {
    const created = '2026-12-01T10:00:00.000Z';
    const member = (taskId: string) => ({ task: { taskId, createdAt: created, durationMs: 10 }, entries: [] });
    const pages = [
      {
        task: { taskId: 'tsk_a', createdAt: created, durationMs: null },
        entries: [{ kind: 'input', at: created, offsetMs: 0 }],
        nextCursor: '1',
        total: 2,
        members: [member('tsk_w')],
      },
      {
        task: { taskId: 'tsk_a', createdAt: created, durationMs: null },
        entries: [{ kind: 'input', at: created, offsetMs: 5 }],
        nextCursor: null,
        total: 2,
        members: [member('tsk_c'), member('tsk_w')],
      },
    ];
    useConsoleFetch(vi.fn(async () => json(pages.shift())));
    const view = new TaskRecordView('tsk_a');
    await view.load();
    expect([...view.members.keys()]).toEqual(['tsk_w', 'tsk_c']);
  });

  it('reads the record from its door first, with the door token, and says so', async () => {
    const asked: { url: string; auth: string | null }[] = [];
    const page = { task: { taskId: 'tsk_a', durationMs: 10 }, entries: [{ kind: 'input', offsetMs: 0 }], nextCursor: null, total: 1, members: [] };
    const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      asked.push({ url: String(url), auth: new Headers(init?.headers).get('authorization') });
      return json(page);
    });
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_a', { door: () => ({ key: '10.0.0.5:4000', token: 'mur_t' }) });
    await view.load();
    expect(view.from).toBe('door');
    expect(asked).toEqual([{ url: '/api/door/10.0.0.5:4000/resources/records/tasks/tsk_a?cursor=0&limit=200', auth: 'Bearer mur_t' }]);
  });

  it('a door gone: the record from the records on this host (the post-mortem path)', async () => {
    const asked: string[] = [];
    const page = { task: { taskId: 'tsk_a', durationMs: 10 }, entries: [{ kind: 'input', offsetMs: 0 }], nextCursor: null, total: 1, members: [] };
    const fetch = vi.fn(async (url: string | URL | Request) => {
      asked.push(String(url));
      return String(url).startsWith('/api/door/') ? json({ error: 'door_unreachable', message: 'gone' }, 502) : json(page);
    });
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_a', { door: () => ({ key: '127.0.0.1:4000', token: null }) });
    await view.load();
    expect(view.from).toBe('console');
    expect(view.entries.map((e) => e.kind)).toEqual(['input']);
    expect(asked).toEqual(['/api/door/127.0.0.1:4000/resources/records/tasks/tsk_a?cursor=0&limit=200', '/api/records/tasks/tsk_a?cursor=0&limit=200']);
  });

  it('a member task not in the caller’s answer is read from the member’s door', async () => {
    const created = '2026-12-01T10:00:00.000Z';
    const memberCall = {
      callId: 'mcl_1',
      member: 'reader',
      memberTaskId: 'tsk_m',
      memberSessionId: null,
      memberUrl: 'http://10.0.0.6:4100',
      status: 'completed',
      elapsedMs: 900,
      offers: 1,
    };
    const caller = {
      task: { taskId: 'tsk_a', createdAt: created, durationMs: 500 },
      entries: [{ kind: 'tool-call', at: created, offsetMs: 0, durationMs: 10, memberCall }],
      nextCursor: null,
      members: [],
    };
    const member = {
      task: { taskId: 'tsk_m', createdAt: created, durationMs: 100 },
      entries: [{ kind: 'input', at: created, offsetMs: 0 }],
      nextCursor: null,
      members: [],
    };
    const asked: string[] = [];
    const fetch = vi.fn(async (url: string | URL | Request) => {
      asked.push(String(url));
      if (String(url).startsWith('/api/door/10.0.0.5:4000/')) return json(caller);
      if (String(url).startsWith('/api/door/10.0.0.6:4100/resources/records/tasks/tsk_m')) return json(member);
      return json({ error: 'not_found', message: 'no' }, 404);
    });
    useConsoleFetch(fetch);
    const view = new TaskRecordView('tsk_a', { door: () => ({ key: '10.0.0.5:4000', token: null }) });
    await view.load();
    expect([...view.members.keys()]).toEqual(['tsk_m']);
    expect(view.rows.map((r) => r.kind)).toEqual(['entry', 'member-task']);
    expect(asked).toEqual([
      '/api/door/10.0.0.5:4000/resources/records/tasks/tsk_a?cursor=0&limit=200',
      '/api/door/10.0.0.6:4100/resources/records/tasks/tsk_m?cursor=0&limit=1000',
    ]);
  });
});
