/**
 * The event-id counters of seed 001 ("Event ids"). Ids are labels, not a sequence: they repeat across tasks and
 * jump between kinds, and clients de-duplicate on (task id, kind, id).
 *
 * The seed keeps one chunk counter per capsule, set to the running task's counter before each inference call.
 * Under `queue` a task resumed from input runs beside the next queued task, and one shared chunk counter would be
 * reset by each in turn, so one task would write the same (kind, id) twice. Here each task has its own chunk
 * counter, with the seed's start value and the seed's hand-over to and from the task's counter around each
 * inference call: every (task, kind, id) names one event (docs/decisions.md).
 */
export const CHUNK_START = 4611686018427387903n;
export const INPUT_WAIT_START = 9223372036854775807n;
export const QUEUED_CANCEL_START = 2305843009213693951n;

export class EventIdCounters {
  private queuedCancel = QUEUED_CANCEL_START;
  private readonly task = new Map<string, bigint>();
  private readonly chunk = new Map<string, bigint>();
  private readonly inputWait = new Map<string, bigint>();

  /** The task's counter: 0 for every task, one per status and artifact frame. */
  nextTask(taskId: string): bigint {
    const id = this.task.get(taskId) ?? 0n;
    this.task.set(taskId, id + 1n);
    return id;
  }

  /** A reopened attempt: the task's counter starts again at 0. */
  restart(taskId: string): void {
    this.task.set(taskId, 0n);
    this.chunk.delete(taskId);
  }

  /** Before each inference call the task's chunk counter takes the task's value. */
  inferenceStarts(taskId: string): void {
    this.chunk.set(taskId, this.task.get(taskId) ?? 0n);
  }

  /** After the call returns the task's counter takes its chunk counter's. */
  inferenceEnds(taskId: string): void {
    const chunk = this.chunk.get(taskId);
    if (chunk !== undefined) this.task.set(taskId, chunk);
  }

  /** A text, thinking or tool-call frame of the task. */
  nextChunk(taskId: string): bigint {
    const id = this.chunk.get(taskId) ?? CHUNK_START;
    this.chunk.set(taskId, id + 1n);
    return id;
  }

  /** A request-input wait starts its counter afresh. */
  inputWaitStarts(taskId: string): bigint {
    this.inputWait.set(taskId, INPUT_WAIT_START + 1n);
    return INPUT_WAIT_START;
  }

  nextInputWait(taskId: string): bigint {
    const id = this.inputWait.get(taskId) ?? INPUT_WAIT_START;
    this.inputWait.set(taskId, id + 1n);
    return id;
  }

  /** Once per session: a task canceled while it waited in the queue. */
  nextQueuedCancel(): bigint {
    const id = this.queuedCancel;
    this.queuedCancel += 1n;
    return id;
  }

  /** A task ended: its counters are dropped, so memory does not grow with the session's task count. */
  forget(taskId: string): void {
    this.task.delete(taskId);
    this.chunk.delete(taskId);
    this.inputWait.delete(taskId);
  }
}
