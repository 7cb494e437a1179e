/** A2A v1.0 task states as ProtoJSON spells them, and murmur's own word for each (seed 000, "Task states"). */
export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

export type TaskState = (typeof TASK_STATES)[number];

/** Every name a ListTasks status filter accepts: the states plus UNSPECIFIED, which means "every state". */
export const TASK_STATE_FILTER_NAMES: readonly string[] = ['TASK_STATE_UNSPECIFIED', ...TASK_STATES];

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_CANCELED',
]);

export function isTerminalState(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}

/** A task settles when it ends or pauses for input: a held SendMessage answers then. */
export function isSettledState(state: TaskState): boolean {
  return TERMINAL_STATES.has(state) || state === 'TASK_STATE_INPUT_REQUIRED';
}

export const MURMUR_STATE_WORD: Readonly<Record<TaskState, string>> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};
