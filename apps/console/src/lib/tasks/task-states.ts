/** How a task state looks: murmur's word for it (always shown as text) and a tone that colours the badge. */
import { MURMUR_STATE_WORD, type TaskState } from '@murmur/protocol';

export type Tone = 'neutral' | 'info' | 'warn' | 'ok' | 'bad' | 'muted';

const TONE: Readonly<Record<TaskState, Tone>> = {
  TASK_STATE_SUBMITTED: 'neutral',
  TASK_STATE_WORKING: 'info',
  TASK_STATE_INPUT_REQUIRED: 'warn',
  TASK_STATE_AUTH_REQUIRED: 'warn',
  TASK_STATE_COMPLETED: 'ok',
  TASK_STATE_FAILED: 'bad',
  TASK_STATE_REJECTED: 'bad',
  TASK_STATE_CANCELED: 'muted',
};

export function stateLabel(state: TaskState): string {
  return MURMUR_STATE_WORD[state] ?? state;
}

export function stateTone(state: TaskState): Tone {
  return TONE[state] ?? 'neutral';
}
