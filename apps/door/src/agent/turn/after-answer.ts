import type { Manifest } from '../../manifest/manifest.schema.js';
import type { TaskLifecycle } from '../../tasks/task-lifecycle.js';
import { agentText } from '../../tasks/task-text.js';
import { inputTimeoutText } from '../../tools/runtime/index.js';
import type { AnswerGovernors } from '../answer-governors.js';
import { type ConversationMessage, runtimeMessage } from '../conversation.js';
import type { TaskContinuations } from '../task-continuations.js';
import { inputTimeoutMs } from './input-wait.js';
import type { Answer, Ending, TaskTurns, TurnNext } from './task-turns.js';

const next = (message: ConversationMessage | null): TurnNext => ({ kind: 'next', message });
const ending = (value: Ending): TurnNext => ({ kind: 'end', ending: value });

/**
 * After an answer: what the call's stop reason makes of the task (docs/agent-loop.md, "The conversation model"), and,
 * when the model answered, the governors in order (docs/agent-loop.md, "When the model answers"): member answers,
 * keep_working, done_check, then the task's completion.
 */
export class AfterAnswer {
  constructor(
    private readonly deps: {
      lifecycle: TaskLifecycle;
      manifest: Manifest;
      governors: AnswerGovernors;
      /** A formation member's continuations (formations/); absent outside a formation. */
      continuations: TaskContinuations | null;
    },
  ) {}

  async decide(turns: TaskTurns, answer: Answer): Promise<TurnNext> {
    if (answer.toolCalls.length > 0) {
      // Seed 004, "end-without-answer": once the turn's tool calls finish, the attempt ends with no further call.
      const reason = this.deps.continuations?.endingWithoutAnswer(turns.task.id) ?? null;
      return reason === null ? next(null) : ending({ kind: 'fail', message: reason, noAnswer: true });
    }
    const { stop } = answer;
    switch (stop.kind) {
      case 'end_turn':
        return this.answered(turns, answer);
      case 'input_required':
        return next(await this.ask(turns, stop.prompt));
      case 'error':
        return ending({ kind: 'fail', message: stop.message });
      case 'max_tokens':
        return ending({ kind: 'fail', message: 'the model’s reply was cut off at its output token cap' });
      case 'tool_use':
      case 'pause_turn':
        return next(null);
      default: {
        const unreachable: never = stop;
        throw new Error(`unknown stop reason ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** The model answered: member answers, then keep_working and done_check, may send the task on before it completes. */
  private async answered(turns: TaskTurns, answer: Answer): Promise<TurnNext> {
    const { task } = turns;
    // Seed 004, "How the answer arrives": with a turn still left, the task waits for its member calls and continues
    // with one message holding every answer; on its last allowed turn it does not wait.
    const { continuations, lifecycle } = this.deps;
    if (continuations && turns.turnLeft) {
      const text = await continuations.continuation(task.id, task.signal, (status) => lifecycle.progress(task.id, status));
      if (text !== null) return next(runtimeMessage(text));
    }
    const after = await this.deps.governors.afterAnswer(task, turns.progress, turns.turn, { left: turns.turnLeft, maxTurns: turns.maxTurns });
    if (after.kind === 'continue') return next(runtimeMessage(after.text));
    return ending(after.kind === 'fail' ? { kind: 'fail', message: after.message } : { kind: 'complete', answer: answer.text, chunked: answer.chunked });
  }

  /** The script driver's `ask`: no tool asked, so a timeout reaches the model as the runtime's own message. */
  private async ask(turns: TaskTurns, prompt: string): Promise<ConversationMessage> {
    const { lifecycle } = this.deps.manifest;
    const outcome = await this.deps.lifecycle.awaitReply(turns.task.id, prompt, inputTimeoutMs(lifecycle));
    if (outcome.kind === 'reply') return { role: 'user', origin: 'reply', content: [{ type: 'text', text: agentText(outcome.text, outcome.trust) }] };
    return runtimeMessage(`[request-input] ${inputTimeoutText(lifecycle.input_timeout_secs)}`);
  }
}
