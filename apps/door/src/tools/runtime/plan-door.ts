import { errorKind, type FetchLike, isHttpRefusalError, MurmurClient } from '@murmur/client';
import { A2A_VERSION, A2A_VERSION_HEADER, isTerminalState, partsText, type Task, TASK_ORIGIN_HEADER, TASK_TRUST_HEADER } from '@murmur/protocol';
import { boundedRequest, failureInWords, withoutAddresses } from '../../egress/outbound-request.js';

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
  /** The calling task's signal: once it aborts, the step sends the door's task CancelTask and rethrows its reason. */
  signal: AbortSignal;
  /** Wraps the step's fetch so each request gets its a2a.client span and traceparent (egress/outbound-tracing.ts); itself when telemetry is off. */
  traced: (fetch: FetchLike) => FetchLike;
}

function statusMessage(task: Task): string {
  const parts = task.status.message?.parts;
  return parts && parts.length > 0 ? partsText(parts) : '';
}

function ended(task: Task): string {
  const message = statusMessage(task);
  return `the door's task ended ${task.status.state}${message === '' ? '' : `: ${withoutAddresses(message)}`}`;
}

/** A request that got no usable answer, as the model may read it: never the door's address. */
function failure(error: unknown): string {
  if (isHttpRefusalError(error)) {
    if (error.status === 401) return 'the door asks for a token, which a plan’s capsule step does not send: a capsule step reaches a public door';
    if (error.code === 'peer_not_accepted') return 'the door does not accept tasks from peer capsules (exports.peer_tasks.accept)';
    return `the door refused the task: ${error.status} ${withoutAddresses(error.message)}`;
  }
  const kind = errorKind(error);
  if (kind === 'connection' || kind === 'timeout') return `the door could not be reached: ${failureInWords(error)}`;
  return `the door's answer could not be read: ${withoutAddresses(error instanceof Error ? error.message : String(error))}`;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A plan's capsule step (docs/plans.md, "How a step runs"): one SendMessage to a public door that accepts peer tasks,
 * stamped A2A-Version 1.0, x-murmur-task-origin: peer and the calling task's trust, then GetTask every 500 ms until the
 * task is terminal. A task still running when the step gives up, or when the calling task is cancelled, is sent one
 * CancelTask.
 */
export async function runCapsuleStep(call: CapsuleStepCall): Promise<CapsuleStepEnd> {
  const stamped: FetchLike = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(A2A_VERSION_HEADER, A2A_VERSION);
    headers.set(TASK_ORIGIN_HEADER, 'peer');
    headers.set(TASK_TRUST_HEADER, call.trust);
    return globalThis.fetch(input, { ...init, headers });
  };
  const client = new MurmurClient(call.url, { fetch: call.traced(stamped), retry: { maxRetries: 0 } });
  const cancel = (taskId: string) => void boundedRequest((signal) => client.cancelTask(taskId, { signal }), { timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined);
  let task: Task;
  try {
    task = await boundedRequest((signal) => client.sendText(call.task, { returnImmediately: true, signal }), { timeoutMs: REQUEST_TIMEOUT_MS, signal: call.signal });
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
      await delay(POLL_MS, call.signal);
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
