import type { TraceFields } from '../../records/trace-schema.js';
import type { DriverResponse, TaskDriver } from '../driver.js';

/** How a call ended: its answer, or the driver failure's text as the task's status message has it. */
export type CallOutcome = { response: DriverResponse } | { failure: string };

/** The call's wall time, and from its start to the first streamed chunk (null: nothing streamed). */
export interface CallTiming {
  durationMs: number;
  firstTokenMs: number | null;
}

/**
 * A call's `inference` record (docs/agent-loop.md, "The conversation model"), for an answer and for a driver failure
 * alike: the failure's `stop_reason` is `failed`, with `failure`, no usage and no tool calls.
 */
export function inferenceRecord(taskId: string, turn: number, driver: TaskDriver, outcome: CallOutcome, timing: CallTiming): TraceFields['inference'] {
  return {
    task_id: taskId,
    turn,
    driver: driver.choice,
    ...(driver.model ? { model: driver.model } : {}),
    // The serving choice's driver kind and output cap, for telemetry.
    ...(driver.kind === undefined ? {} : { driver_kind: driver.kind }),
    ...(driver.maxOutputTokens === undefined ? {} : { max_tokens: driver.maxOutputTokens }),
    ...('failure' in outcome ? { stop_reason: 'failed', failure: outcome.failure, usage: 'unreported' as const, tool_calls: 0 } : answered(outcome.response)),
    // The console's waterfall draws the turn and its time to first token from these (docs/console.md).
    duration_ms: timing.durationMs,
    first_token_ms: timing.firstTokenMs,
  };
}

function answered(response: DriverResponse): Pick<TraceFields['inference'], 'response_id' | 'response_model' | 'stop_reason' | 'usage' | 'tool_calls'> {
  return {
    ...(response.responseId === undefined ? {} : { response_id: response.responseId }),
    ...(response.responseModel === undefined ? {} : { response_model: response.responseModel }),
    stop_reason: response.stop.kind,
    usage: response.usage ?? 'unreported',
    tool_calls: response.toolCalls.length,
  };
}
