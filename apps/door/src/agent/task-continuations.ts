/**
 * What the agent loop asks once a turn ends (seed 004, "How the answer arrives"): the calls a task made to other
 * formation members are answered later, in one runtime message. Implemented in formations/; absent outside one.
 */
export interface TaskContinuations {
  /**
   * The model ended a turn with a turn still left: waits until every call the task made has ended and returns the
   * one message holding their answers, or null when the task has nothing outstanding or undelivered. `onStatus`
   * reports the waiting and continuing status texts as they happen.
   */
  continuation(taskId: string, signal: AbortSignal, onStatus: (text: string) => void): Promise<string | null>;
  /** The reason end-without-answer was accepted with in this task, or null: the attempt then ends without an answer. */
  endingWithoutAnswer(taskId: string): string | null;
  /** The members this task had no answer from, then those they reported further down: each once, at most 8. */
  noAnswerBelow(taskId: string): { member: string; status: string }[];
  /** An on_task_end hook reopened the task: an accepted end-without-answer no longer ends it. */
  reopened?(taskId: string): void;
  /** The attempt ended any other way: outstanding calls are recorded abandoned, arrived answers undelivered. */
  settle(taskId: string): void;
}

export const TASK_CONTINUATIONS = Symbol('TASK_CONTINUATIONS');
