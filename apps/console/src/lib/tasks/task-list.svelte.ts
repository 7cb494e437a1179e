/**
 * The Tasks table: ListTasks with filters, page size, next/previous pages (PageTokenStack) and totalSize, re-listed
 * (debounced) when the session's watch shows a task changing state. A search (`query`) reads the record API instead
 * (docs/console.md: server-side over inputs, replies and answers), with the same filters and paging.
 */
import { type ListTasksRequest, type ListTasksResponse, messageText, type TaskState } from '@murmur/protocol';
import type { DoorClient } from '../door/door-client.js';
import type { ErrorContext, Problem } from '../io/errors.js';
import { Loader } from '../io/loader.svelte.js';
import { PageTokenStack } from './page-stack.js';

export interface TaskFilters {
  /** Words searched in the tasks' inputs, replies, answers and status texts (the record API's `q`); '' lists. */
  query: string;
  /** '' for every state. */
  state: TaskState | '';
  /** '' for every context. */
  contextId: string;
  /** RFC 3339 (UTC) for statusTimestampAfter, or '' for any time. */
  changedSince: string;
  pageSize: number;
}

export const PAGE_SIZES = [10, 25, 50, 100] as const;

export const DEFAULT_FILTERS: TaskFilters = { query: '', state: '', contextId: '', changedSince: '', pageSize: 25 };

/** One row of the table, whether ListTasks or a search found it. */
interface TaskRow {
  id: string;
  contextId: string;
  state: TaskState;
  statusText: string;
  /** When its state last changed (RFC 3339), or null. */
  changedAt: string | null;
}

export interface TaskPage {
  rows: TaskRow[];
  /** '' on the last page. */
  nextPageToken: string;
  totalSize: number;
}

/** Searches the session's records (the DoorSession's seam onto the record API); `pageToken` '' is the first page. */
type SearchTasks = (filters: TaskFilters, pageToken: string, signal: AbortSignal) => Promise<TaskPage>;

/** A ListTasks answer as table rows. */
function pageOfList(list: ListTasksResponse): TaskPage {
  return {
    rows: list.tasks.map((t) => ({
      id: t.id,
      contextId: t.contextId,
      state: t.status.state,
      statusText: messageText(t.status.message).trim(),
      changedAt: t.status.timestamp ?? null,
    })),
    nextPageToken: list.nextPageToken,
    totalSize: list.totalSize,
  };
}

export interface TaskListOptions {
  context?: ErrorContext;
  onProblem?: (problem: Problem) => void;
  /** How a search reads the records; without it a query lists nothing. */
  search?: SearchTasks;
  /** Quiet time after a change before re-listing. @default 400 @unit ms */
  debounceMs?: number;
  /** The longest a steady flow of changes may hold a re-list back. @default 2000 @unit ms */
  maxWaitMs?: number;
}

/** The ListTasks params for a filter set and a page token. */
export function listParams(filters: TaskFilters, pageToken: string): ListTasksRequest {
  const params: ListTasksRequest = { pageSize: filters.pageSize };
  if (pageToken !== '') params.pageToken = pageToken;
  if (filters.state !== '') params.status = filters.state;
  if (filters.contextId.trim() !== '') params.contextId = filters.contextId.trim();
  if (filters.changedSince !== '') params.statusTimestampAfter = filters.changedSince;
  return params;
}

/** A page of rows as listed, with the filters and page position it was listed with. */
interface ShownPage {
  /** null once a refused token hid the rows. */
  page: TaskPage | null;
  filters: TaskFilters;
  pages: PageTokenStack;
}

export class TaskList {
  #filters = $state.raw<TaskFilters>(DEFAULT_FILTERS);
  #pages = $state.raw(PageTokenStack.first());
  /** The page on screen with its filters and position: the label changes with its rows, not a request before. */
  readonly #listed: Loader<ShownPage>;
  /** What the label says while no page is on screen (cleared). */
  #cleared = $state.raw<{ filters: TaskFilters; pages: PageTokenStack }>({ filters: DEFAULT_FILTERS, pages: PageTokenStack.first() });

  readonly #client: () => DoorClient;
  readonly #options: TaskListOptions;
  #debounce: ReturnType<typeof setTimeout> | null = null;
  #firstChangeAt: number | null = null;

  constructor(client: () => DoorClient, options: TaskListOptions = {}) {
    this.#client = client;
    this.#options = options;
    this.#listed = new Loader<ShownPage>({
      context: options.context,
      onProblem: (problem) => {
        // Rows listed with a token the door now refuses are not shown any more.
        const listed = this.#listed.value;
        if (problem.needsToken && listed) this.#listed.set({ ...listed, page: null });
        options.onProblem?.(problem);
      },
    });
  }

  get #shown(): { filters: TaskFilters; pages: PageTokenStack } {
    return this.#listed.value ?? this.#cleared;
  }

  get filters(): TaskFilters {
    return this.#filters;
  }
  get page(): TaskPage | null {
    return this.#listed.value?.page ?? null;
  }
  /** The page number of the rows on screen. */
  get pageNumber(): number {
    return this.#shown.pages.pageNumber;
  }
  /** The page size of the rows on screen. */
  get shownPageSize(): number {
    return this.#shown.filters.pageSize;
  }
  /** The filters of the rows on screen. */
  get shownFilters(): TaskFilters {
    return this.#shown.filters;
  }
  /** The page position of the rows on screen (for the URL). */
  get shownPages(): PageTokenStack {
    return this.#shown.pages;
  }
  get hasPrevious(): boolean {
    return this.#shown.pages.hasPrevious;
  }
  get hasNext(): boolean {
    return (this.page?.nextPageToken ?? '') !== '';
  }
  get loading(): boolean {
    return this.#listed.loading;
  }
  get problem(): Problem | null {
    return this.#listed.problem;
  }
  /** When the page on screen was listed (ms). */
  get updatedAt(): number | null {
    return this.#listed.loadedAt;
  }

  /** New filters start again from the first page (or from `pages`, a deep link's). */
  apply(filters: TaskFilters, pages: PageTokenStack = PageTokenStack.first()): Promise<void> {
    this.#filters = filters;
    this.#pages = pages;
    return this.load();
  }

  next(): Promise<void> {
    const token = this.page?.nextPageToken ?? '';
    if (token === '') return Promise.resolve();
    this.#pages = this.#shown.pages.forward(token);
    return this.load();
  }

  previous(): Promise<void> {
    if (!this.#shown.pages.hasPrevious) return Promise.resolve();
    this.#pages = this.#shown.pages.back();
    return this.load();
  }

  /**
   * Forgets the rows on screen (a forgotten or refused token: they were read with it) and any request under way. The
   * problem stays: a 401 is what the table says it waits for.
   */
  clear(): void {
    this.#cancelDebounce();
    this.#pages = PageTokenStack.first();
    this.#cleared = { filters: this.#filters, pages: this.#pages };
    this.#listed.reset({ keepProblem: true });
  }

  /** Lists the page on screen again. Only the newest request's answer is shown. */
  async load(): Promise<void> {
    this.#cancelDebounce();
    const filters = this.#filters;
    const pages = this.#pages;
    await this.#listed.load((signal) => this.#read(filters, pages, signal));
  }

  /**
   * A task changed state somewhere (the watch saw a status): re-list after a quiet `debounceMs`, and at least every
   * `maxWaitMs` while changes keep coming.
   */
  notifyChange(): void {
    const now = Date.now();
    this.#firstChangeAt ??= now;
    const debounceMs = this.#options.debounceMs ?? 400;
    const maxWaitMs = this.#options.maxWaitMs ?? 2000;
    const wait = Math.max(0, Math.min(debounceMs, this.#firstChangeAt + maxWaitMs - now));
    if (this.#debounce !== null) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      this.#debounce = null;
      void this.load();
    }, wait);
  }

  dispose(): void {
    this.#cancelDebounce();
    this.#listed.reset({ keepProblem: true });
  }

  async #read(filters: TaskFilters, pages: PageTokenStack, signal: AbortSignal): Promise<ShownPage> {
    if (filters.query === '') return { page: pageOfList(await this.#client().listTasks(listParams(filters, pages.current), { signal })), filters, pages };
    if (!this.#options.search) return { page: { rows: [], nextPageToken: '', totalSize: 0 }, filters, pages };
    return { page: await this.#options.search(filters, pages.current, signal), filters, pages };
  }

  #cancelDebounce(): void {
    if (this.#debounce !== null) clearTimeout(this.#debounce);
    this.#debounce = null;
    this.#firstChangeAt = null;
  }
}
