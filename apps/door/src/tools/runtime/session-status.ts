import type { JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { QuotaWindow, QuotaWindows } from '../../usage/quota-windows.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { SpendCeilings, SpendStatus } from '../../usage/spend-ceilings.js';
import type { ToolCallContext } from '../tool-call.js';
import type { DriverSelection } from './driver-selection.js';
import { contextBudget } from '../../manifest/inference-choices.js';

export const SESSION_STATUS_SCHEMA: JsonObject = { type: 'object', properties: {} };

export const SESSION_STATUS_DESCRIPTION =
  'Reports, measured now, the time this session has run and has left before its deadline, the inference turns the running task has used against its cap, the conversation’s size, and the tokens the session has used. Takes no input.';

/** Granted to every agent capsule: one with an inference: block (seed 004, "session-status needs no grant"). */
export function sessionStatusGranted(manifest: Manifest): boolean {
  return manifest.inference !== undefined;
}

type NoneOr<T> = T | 'none';
type UnknownOr<T> = T | 'unknown';

/** The object session-status returns (seed 004), field for field. */
interface SessionStatus {
  time: { elapsed_secs: number; task_elapsed_secs: UnknownOr<number>; deadline: NoneOr<{ at: string; left_secs: number }> };
  turns: { used: number; cap: NoneOr<number> };
  keep_working: NoneOr<{ used: number; left: number }>;
  done_check: NoneOr<{ used: number; left: number }>;
  context: UnknownOr<{
    used_tokens: number;
    window_tokens: NoneOr<number>;
    budget_tokens: NoneOr<number>;
    budget_basis: NoneOr<'max_input_tokens' | 'context_window_less_output_cap'>;
    measured_by: 'actual' | 'estimate';
  }>;
  tokens: { input: UnknownOr<number>; output: UnknownOr<number>; cached: UnknownOr<number>; cache_write: UnknownOr<number>; unreported_calls: number };
  spend: { tokens: number } & SpendStatus;
  /** Under transport: process, once the harness reported a window; absent otherwise (seed 004). */
  quota?: QuotaWindow[];
}

const secs = (ms: number) => Math.max(0, Math.floor(ms / 1000));

/** A governor's counts for the running task: `used` of `limit`, 0 used outside a task; "none" when the option is not set. */
const counted = (limit: number | undefined, used: number | undefined): NoneOr<{ used: number; left: number }> =>
  limit === undefined ? 'none' : { used: used ?? 0, left: limit - (used ?? 0) };

/** session-status, measured at the moment of the call; context is "unknown" before the first inference call returns. */
function sessionStatus(
  deps: { session: SessionContext; usage: UsageLedger; spend: SpendCeilings; quota?: QuotaWindows; drivers?: DriverSelection; now?: () => number },
  ctx: ToolCallContext,
): SessionStatus {
  const now = (deps.now ?? Date.now)();
  const { session, usage } = deps;
  const totals = usage.totals();
  const maxTurns = session.manifest.inference?.max_turns;
  const quota = deps.quota?.status() ?? null;
  return {
    time: {
      elapsed_secs: secs(now - session.startedAtMs),
      task_elapsed_secs: ctx.task ? secs(now - ctx.task.startedAtMs) : 'unknown',
      deadline: session.deadline ? { at: session.deadline.at, left_secs: session.deadline.leftSecs() } : 'none',
    },
    turns: { used: ctx.task?.turnsUsed ?? 0, cap: maxTurns ?? 'none' },
    keep_working: counted(session.manifest.lifecycle.keep_working?.limit, ctx.task?.keepWorkingUsed),
    done_check: counted(session.manifest.lifecycle.done_check?.limit, ctx.task?.doneCheckUsed),
    context: ctx.task?.context
      ? { used_tokens: ctx.task.context.usedTokens, ...contextWindow(deps.drivers), measured_by: ctx.task.context.measuredBy }
      : 'unknown',
    tokens: { input: totals.input, output: totals.output, cached: totals.cached, cache_write: totals.cacheWrite, unreported_calls: totals.unreportedCalls },
    spend: { tokens: usage.spentTokens(), ...deps.spend.status() },
    ...(quota === null ? {} : { quota }),
  };
}

/** The window of the choice that served the last call, and the budget the compaction check compares with (seed 004). */
function contextWindow(
  drivers: DriverSelection | undefined,
): Pick<Exclude<SessionStatus['context'], 'unknown'>, 'window_tokens' | 'budget_tokens' | 'budget_basis'> {
  const budget = contextBudget(drivers?.lastServed ?? null);
  if (!budget) return { window_tokens: 'none', budget_tokens: 'none', budget_basis: 'none' };
  return { window_tokens: budget.windowTokens, budget_tokens: budget.budgetTokens, budget_basis: budget.basis };
}

/** The tool: the object as JSON, and one session_status record carrying it. */
export async function runSessionStatus(
  deps: { session: SessionContext; usage: UsageLedger; spend: SpendCeilings; quota?: QuotaWindows; trace: TraceWriter; drivers?: DriverSelection },
  ctx: ToolCallContext,
): Promise<string> {
  const status = sessionStatus(deps, ctx);
  deps.trace.write('session_status', { task_id: ctx.taskId, status });
  return JSON.stringify(status);
}
