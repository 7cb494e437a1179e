import { parseArgs } from 'node:util';
import type { TaskState } from '@murmur/protocol';
import { doorSettings } from '../config/settings.js';
import { completionHeaders, doorClient } from '../egress/door-call.js';
import { boundedRequest } from '../egress/outbound-request.js';
import type { OutboundTracing } from '../egress/outbound-tracing.js';
import { type ChildToParent, type CompletionData, type DelegateOrder, type DelegationStatus, isDelegateOrder } from '../formations/delegation-messages.js';
import { entryOf, register, unregister } from '../session/session-registry.js';
import { stageSession } from '../session/stage-session.js';
import { type RunningDoor, startDoor } from '../start-door.js';
import type { TaskRow } from '../tasks/task.entity.js';
import { UsageError } from './usage-error.js';
import { manageMemoryWhileServing } from '../memory/serving-memory.js';

/** How long posting the completion may take. */
const POST_TIMEOUT_MS = 10_000;

const STATUS_OF: Partial<Record<TaskState, DelegationStatus>> = {
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_REJECTED: 'rejected',
};

/** What the child's task ended with: its answer when it completed, else its status message. */
export function completionData(delegationId: string, row: TaskRow): CompletionData {
  if (row.state === 'TASK_STATE_INPUT_REQUIRED') {
    return {
      delegation_id: delegationId,
      task_id: row.id,
      status: 'failed',
      output: `the sub-capsule asked for input, which a delegation cannot give: ${row.statusText ?? ''}`,
    };
  }
  const status = STATUS_OF[row.state] ?? 'failed';
  return { delegation_id: delegationId, task_id: row.id, status, output: (status === 'completed' ? row.response : row.statusText) ?? '' };
}

/**
 * Posts the completion to the parent (seed 000, "Runtime headers"): resolves with the refusal's message, or null. With
 * telemetry on, the request has its a2a.client span, a child of the context the order carried (the parent's
 * delegate-task call: the child's task has ended by now), and carries its traceparent (docs/telemetry.md).
 */
async function postCompletion(order: DelegateOrder, data: CompletionData, tracing: OutboundTracing): Promise<string | null> {
  const client = doorClient({
    url: order.parentUrl,
    token: order.token,
    headers: completionHeaders(order.delegationId, order.parentSession),
    traced: (fetch) => tracing.a2aUnder(order.traceContext ?? null, fetch),
  });
  try {
    // Ends by its own timeout whatever the collector does (egress/outbound-request.ts).
    await boundedRequest(
      (signal) =>
        client.sendMessage(
          { message: { messageId: `msg_${order.delegationId}_completion`, role: 'ROLE_USER', parts: [{ data: { ...data }, mediaType: 'application/json' }] } },
          { signal },
        ),
      { timeoutMs: POST_TIMEOUT_MS },
    );
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A delegated sub-capsule's process (`mur run <capsule> --delegation --records DIR`, forked by the delegating
 * session with an IPC channel; docs/formations.md, "Delegation"): runs the one task it is handed, posts the
 * completion to its parent, and stops. Resolves with the exit code.
 */
export async function runDelegationChild(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { delegation: { type: 'boolean' }, records: { type: 'string' }, deadline: { type: 'string' } },
  });
  const send = process.send?.bind(process);
  if (!send || positionals.length !== 1 || values.records === undefined)
    throw new UsageError('mur run --delegation is started by a delegating session, with an IPC channel');
  const tell = (message: ChildToParent) => send(message);
  const deadlineMs = values.deadline === undefined ? undefined : Date.parse(values.deadline);
  const session = stageSession({ dir: positionals[0]!, settings: doorSettings(), host: '127.0.0.1', port: 0, deadlineMs, recordsDir: values.records });
  const door: RunningDoor = await startDoor(session);
  manageMemoryWhileServing();
  register(entryOf(session, door.url));
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= door.close().finally(() => unregister(session.sessionId));
    return stopping;
  };
  const done = new Promise<void>((resolve) => {
    process.on('message', (message: unknown) => {
      if (!isDelegateOrder(message)) return;
      // Registered again with its parent, so mur ps lists this session under the one that delegated to it.
      register({ ...entryOf(session, door.url), delegation: { parentSessionId: message.parentSession, delegationId: message.delegationId } });
      void (async () => {
        const task = await door.tasks.submitSessionTask(message.task, { traceContext: message.traceContext ?? null });
        tell({ kind: 'launched', taskId: task.id });
        const row = await door.settled(task.id);
        const data = completionData(message.delegationId, row);
        const error = await postCompletion(message, data, door.tracing);
        door.trace.write('delegation_completion', {
          delegation_id: message.delegationId,
          task_id: task.id,
          status: data.status,
          delivered: error === null,
          delivery_error: error,
        });
        tell({ kind: 'posted', delivered: error === null, error });
      })()
        .catch((error: unknown) => tell({ kind: 'failed', message: (error as Error).message }))
        .finally(() => void stop().then(resolve));
    });
    // The parent is gone, or ends the delegation: a child never outlives its parent.
    process.once('disconnect', () => void stop().then(resolve));
    process.once('SIGTERM', () => void stop().then(resolve));
    process.once('SIGINT', () => void stop().then(resolve));
  });
  tell({ kind: 'announced', sessionId: session.sessionId, url: door.url, pid: process.pid, version: session.manifest.version });
  await done;
  return 0;
}
