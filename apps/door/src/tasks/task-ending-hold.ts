/**
 * Something a task's ending waits for before it is written: a formation member's call whose offer is on its way
 * (seed 004, "A busy member": the calling task waits up to 6 seconds for that offer's answer before it ends). The
 * lifecycle asks every hold before it writes TASK_STATE_COMPLETED, FAILED or CANCELED; formations/ adds its member
 * calls on init. Outside a formation there is none, and an ending is written at once.
 */
export interface TaskEndingHold {
  /**
   * The task is ending: what its ending waits for, or null when nothing holds it. Never rejects; a second call for
   * the same ending answers the same wait (or null once it has nothing left to wait for).
   */
  beforeEnd(taskId: string): Promise<void> | null;
}

export const TASK_ENDING_HOLDS = Symbol('TASK_ENDING_HOLDS');
