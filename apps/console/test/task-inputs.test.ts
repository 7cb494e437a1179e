import { describe, expect, it, vi } from 'vitest';
import { TaskInputs } from '../src/lib/task-inputs.svelte';
import { TaskRecordView } from '../src/lib/task-record.svelte';

const summary = (taskId: string, input: string | null) => ({ taskId, input });
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('TaskInputs', () => {
  it('asks for every wanted id in one request per tick and keeps each input’s first line', async () => {
    const fetch = vi.fn(async () => json({ tasks: [summary('tsk_a', 'build the kite\nsecond line'), summary('tsk_b', null)] }));
    const inputs = new TaskInputs({ fetch });
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
    const inputs = new TaskInputs({ fetch: async () => json({}, 500) });
    inputs.want(['tsk_a']);
    await settle();
    expect(inputs.line('tsk_a')).toBeUndefined();
  });
});

describe('TaskRecordView', () => {
  it('reads every page of a record and spans its latest entry', async () => {
    const pages = [
      { task: { taskId: 'tsk_a', durationMs: null }, entries: [{ kind: 'input', offsetMs: 0 }], nextCursor: '1', total: 2 },
      { task: { taskId: 'tsk_a', durationMs: null }, entries: [{ kind: 'tool-call', offsetMs: 40, durationMs: 200 }], nextCursor: null, total: 2 },
    ];
    const fetch = vi.fn(async () => json(pages.shift()));
    const view = new TaskRecordView('tsk_a', { fetch });
    await view.load();
    expect(view.entries.map((e) => e.kind)).toEqual(['input', 'tool-call']);
    expect(view.spanMs).toBe(240);
    expect(String((fetch.mock.calls[1] as unknown[])[0])).toContain('cursor=1');
  });

  it('a task no records folder holds is missing, not a problem', async () => {
    const view = new TaskRecordView('tsk_a', { fetch: async () => json({ error: 'not_found' }, 404) });
    await view.load();
    expect(view.missing).toBe(true);
    expect(view.problem).toBeNull();
  });
});
