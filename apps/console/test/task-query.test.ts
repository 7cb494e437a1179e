import { describe, expect, it } from 'vitest';
import { PageTokenStack } from '../src/lib/tasks/page-stack';
import { parseRoute, href } from '../src/lib/routing/routes';
import { DEFAULT_FILTERS } from '../src/lib/tasks/task-list.svelte';
import { fromQuery, toQuery } from '../src/lib/tasks/task-query';

describe('the tasks table in the URL', () => {
  it('writes only what differs from the defaults, and reads it back with the page position', () => {
    expect(toQuery(DEFAULT_FILTERS, PageTokenStack.first())).toBe('');
    const filters = { query: 'kite run', state: 'TASK_STATE_FAILED' as const, contextId: 'ctx_1', changedSince: '2026-11-29T15:00:00.000Z', pageSize: 10 };
    const pages = PageTokenStack.first().forward('p2').forward('p3');
    const query = toQuery(filters, pages);
    const back = fromQuery(query);
    expect(back.filters).toEqual(filters);
    expect(back.pages.pageNumber).toBe(3);
    expect(back.pages.current).toBe('p3');
    expect(back.pages.back().current).toBe('p2');
    expect(back.pages.back().back().current).toBe('');
  });

  it('drops what it cannot read', () => {
    expect(fromQuery('state=SIDEWAYS&size=7&since=yesterday').filters).toEqual(DEFAULT_FILTERS);
  });

  it('rides on the door route, and a task route carries the entry linked to', () => {
    expect(parseRoute('#/door/127.0.0.1:1?q=kite&size=10')).toEqual({ name: 'door', door: '127.0.0.1:1', query: 'q=kite&size=10' });
    expect(href({ name: 'door', door: '127.0.0.1:1', query: 'q=kite' })).toBe('#/door/127.0.0.1:1?q=kite');
    expect(parseRoute('#/door/127.0.0.1:1/tasks/tsk_1?entry=4')).toEqual({ name: 'task', door: '127.0.0.1:1', taskId: 'tsk_1', entry: 4 });
    expect(href({ name: 'task', door: '127.0.0.1:1', taskId: 'tsk_1', entry: 4 })).toBe('#/door/127.0.0.1:1/tasks/tsk_1?entry=4');
  });
});
