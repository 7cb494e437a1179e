import { Inject, Injectable } from '@nestjs/common';
import { type ListTasksResponse, METHOD, readListTasksParams } from '@murmur/protocol';
import type { RpcAnswer, RpcCall, RpcMethod } from '../rpc/rpc-context.js';
import { PageTokens } from '../tasks/page-tokens.js';
import { TaskStore } from '../tasks/task-store.js';
import { toWireTask } from '../tasks/wire-task.js';

/** ListTasks: one page of the tasks the caller sees, most recently changed first (seed 000, "ListTasks"). */
@Injectable()
export class ListTasksMethod implements RpcMethod {
  readonly method = METHOD.ListTasks;

  constructor(
    @Inject(TaskStore) private readonly store: TaskStore,
    @Inject(PageTokens) private readonly tokens: PageTokens,
  ) {}

  async handle(call: RpcCall): Promise<RpcAnswer> {
    // A well-formed token this session did not seal is "anything else": refused as a malformed one is.
    const verdict = readListTasksParams(call.params, { issued: (position) => this.tokens.issued(position) });
    if (!verdict.ok) return { error: verdict.error };
    const { query } = verdict;
    const page = await this.store.viewFor(call.caller).list(query);
    const result: ListTasksResponse = {
      tasks: page.rows.map((row) => toWireTask(row, query.includeArtifacts, query.includeArtifacts)),
      nextPageToken: page.next ? this.tokens.issue(page.next) : '',
      pageSize: query.pageSize,
      totalSize: page.totalSize,
    };
    return { result };
  }
}
