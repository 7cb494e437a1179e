import { CHARS_PER_TOKEN, COMPACTION_SYSTEM, estimateTokens, type SummaryOutcome } from '../compaction.js';
import { runtimeMessage } from '../conversation.js';
import type { DriverResponse, TaskDriver } from '../driver.js';
import type { CallSpend } from './call-spend.js';

/**
 * Compaction's summary (docs/agent-loop.md, "Compaction"): one call of the task's driver with the older turns as a
 * transcript and no tools, admitted and settled against the spend ceilings like any call; its chunks are not the
 * task's reply, so none is streamed, and it is not a turn.
 */
export async function summaryCall(spend: CallSpend, driver: TaskDriver, signal: AbortSignal, turn: number, transcript: string): Promise<SummaryOutcome> {
  const messages = [runtimeMessage(`Summarise this transcript:\n\n${transcript}`)];
  const admitted = spend.admit(estimateTokens(messages) + Math.ceil(COMPACTION_SYSTEM.length / CHARS_PER_TOKEN));
  if ('refusal' in admitted) return { kind: 'failed', reason: admitted.refusal.message };
  let response: DriverResponse;
  try {
    response = await spend.settled(admitted.admission, () =>
      driver.infer({ turn, system: COMPACTION_SYSTEM, messages, tools: [], signal, purpose: 'compaction' }, () => undefined),
    );
  } catch (error) {
    if (signal.aborted) throw error;
    return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
  if (response.stop.kind === 'error') return { kind: 'failed', reason: response.stop.message };
  if (response.text.trim() === '') return { kind: 'failed', reason: 'the model wrote no summary' };
  return { kind: 'summary', text: response.text };
}
