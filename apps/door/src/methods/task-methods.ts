import {
  DOOR_EXTENSION_URI,
  encodePageToken,
  invalidParams,
  type JsonObject,
  type JsonRpcErrorObject,
  type ListTasksResponse,
  readListTasksParams,
  type StopSessionResult,
  TERMINAL_STATES,
  taskNotCancelable,
  taskNotFound,
} from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import type { TaskService } from '../tasks/task-service.js';
import type { TaskStore } from '../tasks/task-store.js';
import { toWireTask } from '../tasks/task-view.js';
import type { BackgroundCommands } from '../tools/background-commands.js';
import type { RpcAnswer, RpcCall } from '../rpc/rpc-context.js';

/** params.id of GetTask, CancelTask and SubscribeToTask: absent or "" answers "<Method> requires an id". */
export function readTaskId(method: string, params: JsonObject): { id: string } | { error: JsonRpcErrorObject } {
  const id = params.id;
  if (id === undefined || id === '' || id === null) return { error: invalidParams(`${method} requires an id`) };
  if (typeof id !== 'string') return { error: invalidParams(`Invalid params: id must be a string, not ${JSON.stringify(id)}`) };
  return { id };
}

/** GetTask, ListTasks, CancelTask and murmur.StopSession. */
export class TaskMethods {
  constructor(
    private readonly session: SessionContext,
    private readonly store: TaskStore,
    private readonly tasks: TaskService,
    private readonly background: BackgroundCommands,
  ) {}

  readonly getTask = async (call: RpcCall): Promise<RpcAnswer> => {
    const read = readTaskId('GetTask', call.params);
    if ('error' in read) return read;
    const row = this.store.viewFor(call.caller).get(read.id);
    return row ? { result: toWireTask(row) } : { error: taskNotFound(read.id) };
  };

  readonly listTasks = async (call: RpcCall): Promise<RpcAnswer> => {
    const verdict = readListTasksParams(call.params);
    if (!verdict.ok) return { error: verdict.error };
    const { query } = verdict;
    const page = await this.store.viewFor(call.caller).list(query);
    const result: ListTasksResponse = {
      tasks: page.rows.map((row) => toWireTask(row, query.includeArtifacts, query.includeArtifacts)),
      nextPageToken: page.next ? encodePageToken(page.next) : '',
      pageSize: query.pageSize,
      totalSize: page.totalSize,
    };
    return { result };
  };

  readonly cancelTask = async (call: RpcCall): Promise<RpcAnswer> => {
    const read = readTaskId('CancelTask', call.params);
    if ('error' in read) return read;
    const row = this.store.viewFor(call.caller).get(read.id);
    if (!row) return { error: taskNotFound(read.id) };
    if (TERMINAL_STATES.has(row.state)) return { error: taskNotCancelable(row.id, row.state) };
    const canceled = await this.tasks.cancel(row.id);
    if (!canceled) {
      // It ended (another cancel, its own ending) while this request waited to write: left unchanged.
      const ended = this.store.row(row.id)!;
      return { error: taskNotCancelable(ended.id, ended.state) };
    }
    return { result: toWireTask(canceled) };
  };

  readonly stopSession = async (_call: RpcCall): Promise<RpcAnswer> => {
    const canceled = await this.tasks.cancelAll();
    const result: StopSessionResult = { canceled, residue: this.background.residue(), session_id: this.session.sessionId };
    return { result, extensions: [DOOR_EXTENSION_URI] };
  };
}
