import type { TaskContinuations } from '../agent/task-continuations.js';
import type { TraceWriter } from '../records/trace-writer.js';
import { continuationText } from './continuation.js';
import { type Delegations, outcomeBlock } from './delegations.js';
import type { MemberCalls } from './member-calls.js';

/**
 * A task's continuation when it made member calls, delegations, or both (seed 004: "waits for both kinds together
 * and continues once neither has anything outstanding, with every answer and every delegation outcome in one
 * message, answers first").
 */
export class Continuations implements TaskContinuations {
  constructor(
    private readonly calls: MemberCalls | null,
    private readonly delegations: Delegations | null,
    private readonly trace: TraceWriter,
  ) {}

  async continuation(taskId: string, signal: AbortSignal, onStatus: (text: string) => void): Promise<string | null> {
    const delegated = this.delegations?.pending(taskId) ?? 0;
    if (delegated === 0) return this.calls?.continuation(taskId, signal, onStatus) ?? null;
    const [input, outcomes] = await Promise.all([
      this.calls?.awaitRound(taskId, signal, onStatus) ?? Promise.resolve({ answers: [], latest: [], sentBy: null }),
      this.delegations!.awaitRound(taskId, signal, onStatus),
    ]);
    const answers = input.answers.length;
    onStatus(
      answers === 0
        ? `continuing with ${outcomes.length} delegation outcome(s)`
        : `continuing with ${answers} member answer(s) and ${outcomes.length} delegation outcome(s)`,
    );
    this.trace.write('task_continued', { task_id: taskId, answers, delegations: outcomes.length });
    return continuationText({ ...input, outcomes: outcomes.map(outcomeBlock) });
  }

  reopened(taskId: string): void {
    this.calls?.reopened(taskId);
  }

  endingWithoutAnswer(taskId: string): string | null {
    return this.calls?.endingWithoutAnswer(taskId) ?? null;
  }

  noAnswerBelow(taskId: string): { member: string; status: string }[] {
    return this.calls?.noAnswerBelow(taskId) ?? [];
  }

  settle(taskId: string): void {
    this.calls?.settle(taskId);
    this.delegations?.settle(taskId);
  }
}
