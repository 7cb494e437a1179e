import { type FetchLike, isHttpRefusalError } from '@murmur/client';
import { isTerminalState, partsText, type Task } from '@murmur/protocol';
import { abortableDelay } from '../../egress/abortable-delay.js';
import { doorClient, peerTaskHeaders, statusText, unanswered } from '../../egress/door-call.js';
import { boundedRequest, withoutAddresses } from '../../egress/outbound-request.js';

/** How often the door's task is read while a capsule step waits (the member calls' pace). */
const POLL_MS = 500;
/** How long one request to the door may take. */
const REQUEST_TIMEOUT_MS = 5_000;

/** How a capsule step ended: its status, the output the plan shows and references, and the door's task id. */
export interface CapsuleStepEnd {
  status: 'passed' | 'failed';
  output: string;
  doorTaskId: string | null;
}

export interface CapsuleStepCall {
  url: string;
  task: string;
  trust: 'trusted' | 'untrusted';
  /** How long the step may wait for the door's answer (lifecycle.delegation_deadline_secs). */
  deadlineSecs: number;
  /** The calling task's signal: once it aborts, the step sends the door's task CancelTask and rejects. */
  signal: AbortSignal;
  /** Wraps the step's fetch so each request gets its a2a.client span and traceparent (egress/outbound-tracing.ts); itself when telemetry is off. */
  traced: (fetch: FetchLike) => FetchLike;
}

function ended(task: Task): string {
  const message = statusText(task) ?? '';
  return `the door's task ended ${task.status.state}${message === '' ? '' : `: ${withoutAddresses(message)}`}`;
}

/** A request that got no usable answer, as the model may read it: never the door's address. */
function failure(error: unknown): string {
  if (isHttpRefusalError(error)) {
    if (error.status === 401) return 'the door asks for a token, which a plan’s capsule step does not send: a capsule step reaches a public door';
    if (error.code === 'peer_not_accepted') return 'the door does not accept tasks from peer capsules (exports.peer_tasks.accept)';
    return `the door refused the task: ${error.status} ${withoutAddresses(error.message)}`;
  }
  const { kind, why } = unanswered(error);
  return kind === 'no-answer' ? `the door could not be reached: ${why}` : `the door's answer could not be read: ${why}`;
}

/**
 * A plan's capsule step (docs/plans.md, "How a step runs"): one call to another door (egress/door-call.ts), a
 * SendMessage to a public door that accepts peer tasks, with x-murmur-task-origin: peer and the calling task's trust,
 * then GetTask every 500 ms until the task is terminal. A task still running when the step gives up, or when the
 * calling task is cancelled, is sent one CancelTask.
 */
export async function runCapsuleStep(call: CapsuleStepCall): Promise<CapsuleStepEnd> {
  const client = doorClient({ url: call.url, headers: peerTaskHeaders(call.trust), traced: call.traced });
  const cancel = (taskId: string) =>
    void boundedRequest((signal) => client.cancelTask(taskId, { signal }), { timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined);
  let task: Task;
  try {
    task = await boundedRequest((signal) => client.sendText(call.task, { returnImmediately: true, signal }), {
      timeoutMs: REQUEST_TIMEOUT_MS,
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason;
    return { status: 'failed', output: failure(error), doorTaskId: null };
  }
  const deadline = Date.now() + call.deadlineSecs * 1000;
  try {
    for (;;) {
      if (task.status.state === 'TASK_STATE_COMPLETED') {
        const response = task.artifacts?.find((a) => a.artifactId === 'response');
        return { status: 'passed', output: response ? partsText(response.parts) : '', doorTaskId: task.id };
      }
      if (isTerminalState(task.status.state)) return { status: 'failed', output: ended(task), doorTaskId: task.id };
      if (task.status.state === 'TASK_STATE_INPUT_REQUIRED') {
        cancel(task.id);
        return { status: 'failed', output: 'the door’s task asks for input, which a plan step cannot give; it was cancelled', doorTaskId: task.id };
      }
      if (Date.now() >= deadline) {
        cancel(task.id);
        return { status: 'failed', output: `the door did not answer within ${call.deadlineSecs}s; its task was cancelled`, doorTaskId: task.id };
      }
      await abortableDelay(POLL_MS, call.signal);
      const id = task.id;
      try {
        task = await boundedRequest((signal) => client.getTask(id, { signal }), { timeoutMs: REQUEST_TIMEOUT_MS, signal: call.signal });
      } catch (error) {
        if (call.signal.aborted) throw error;
        cancel(id);
        return { status: 'failed', output: failure(error), doorTaskId: id };
      }
    }
  } catch (error) {
    // The calling task was cancelled while the step waited: the door's task serves nothing now.
    cancel(task.id);
    throw error;
  }
}
