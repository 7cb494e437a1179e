/**
 * The tasks table's filters and page as a URL query (`#/door/<key>?q=kite&state=TASK_STATE_FAILED&size=10&page=…`),
 * so a filtered page can be linked to. Only what differs from the defaults is written; unknown or malformed values are
 * dropped when read, so a hand-edited link opens the nearest valid page.
 */
import { TASK_STATES, type TaskState } from '@murmur/protocol';
import { PageTokenStack } from './page-stack.js';
import { DEFAULT_FILTERS, PAGE_SIZES, type TaskFilters } from './task-list.svelte.js';

export function toQuery(filters: TaskFilters, pages: PageTokenStack): string {
  const query = new URLSearchParams();
  if (filters.query !== '') query.set('q', filters.query);
  if (filters.state !== '') query.set('state', filters.state);
  if (filters.contextId !== '') query.set('context', filters.contextId);
  if (filters.changedSince !== '') query.set('since', filters.changedSince);
  if (filters.pageSize !== DEFAULT_FILTERS.pageSize) query.set('size', String(filters.pageSize));
  for (const token of pages.tokens) query.append('page', token);
  return query.toString();
}

export function fromQuery(search: string): { filters: TaskFilters; pages: PageTokenStack } {
  const query = new URLSearchParams(search);
  const state = query.get('state') ?? '';
  const size = Number(query.get('size'));
  const since = query.get('since') ?? '';
  const filters: TaskFilters = {
    query: (query.get('q') ?? '').trim(),
    state: (TASK_STATES as readonly string[]).includes(state) ? (state as TaskState) : '',
    contextId: (query.get('context') ?? '').trim(),
    changedSince: since !== '' && !Number.isNaN(Date.parse(since)) ? since : '',
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_FILTERS.pageSize,
  };
  return { filters, pages: PageTokenStack.of(query.getAll('page')) };
}
