/**
 * The event-id counters of seed 001 ("Event ids"). Ids are labels, not a sequence: they repeat across tasks and
 * jump between kinds, and clients de-duplicate on (task id, kind, id).
 */
const CHUNK_START = 4611686018427387903n;
const INPUT_WAIT_START = 9223372036854775807n;
const QUEUED_CANCEL_START = 2305843009213693951n;

export class EventIdCounters {
  private chunk = CHUNK_START;
  private queuedCancel = QUEUED_CANCEL_START;
  private readonly task = new Map<string, bigint>();
  private readonly inputWait = new Map<string, bigint>();

  /** The task's counter: 0 for every task, one per status and artifact frame. */
  nextTask(taskId: string): bigint {
    const id = this.task.get(taskId) ?? 0n;
    this.task.set(taskId, id + 1n);
    return id;
  }

  /** Before each inference call the chunk counter takes the task's value. */
  inferenceStarts(taskId: string): void {
    this.chunk = this.task.get(taskId) ?? 0n;
  }

  /** After the call returns the task's counter takes the chunk counter's. */
  inferenceEnds(taskId: string): void {
    this.task.set(taskId, this.chunk);
  }

  nextChunk(): bigint {
    const id = this.chunk;
    this.chunk += 1n;
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

  nextQueuedCancel(): bigint {
    const id = this.queuedCancel;
    this.queuedCancel += 1n;
    return id;
  }

  forget(taskId: string): void {
    this.task.delete(taskId);
    this.inputWait.delete(taskId);
  }
}
