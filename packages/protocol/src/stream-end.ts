/**
 * When a task stream ends — the one rule the door (which closes the stream) and the client (which stops reading and
 * does not reconnect) both apply (docs/streaming.md, "What each stream writes, in order"; seed 000, "Streams").
 */
import { METHOD } from './methods.js';
import { isTerminalState, type TaskState } from './task-states.js';

export interface TaskStreamEndOptions {
  /**
   * Whether the stream also ends when its task pauses for input. True for SendStreamingMessage (the reply is a new
   * message with its own stream); false for SubscribeToTask, which stays open through input requests.
   */
  endsOnInputRequired: boolean;
}

/** Whether a task stream ends after a task or plain status event reporting `state`. */
export function endsTaskStream(state: TaskState, options: TaskStreamEndOptions): boolean {
  return isTerminalState(state) || (options.endsOnInputRequired && state === 'TASK_STATE_INPUT_REQUIRED');
}

/** The endsOnInputRequired of a stream method: SendStreamingMessage ends at an input request, the others do not. */
export function taskStreamEndOptions(method: string): TaskStreamEndOptions {
  return { endsOnInputRequired: method === METHOD.SendStreamingMessage };
}
