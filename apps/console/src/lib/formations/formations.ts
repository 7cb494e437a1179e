/**
 * The formation view's reading of `GET /api/formations` (docs/console.md, "Formations"): each member's state, each
 * call's status and elapsed time, the calls in the order the view lists them. Pure, so it is tested without a door.
 */
import {
  CONSOLE_FORMATIONS_PATH,
  type ConsoleFormation,
  type ConsoleFormationMember,
  type ConsoleFormationsResponse,
  type ConsoleMemberCall,
  isTerminalState,
} from '@murmur/protocol';
import { ConsoleApiError } from '../io/errors.js';
import type { Tone } from '../tasks/task-states.js';

export interface Activity {
  label: string;
  tone: Tone;
}

/** A member's state: its process, then its calls in flight as a caller, then its store's tasks. */
export function memberActivity(member: ConsoleFormationMember, calls: readonly ConsoleMemberCall[]): Activity {
  if (member.session === 'stale') return { label: 'gone', tone: 'bad' };
  if (member.session === 'ended') return { label: 'stopped', tone: 'muted' };
  const waiting = calls.filter((c) => c.caller === member.member && !c.ended).length;
  if (waiting > 0) return { label: `waiting on ${waiting} call${waiting === 1 ? '' : 's'}`, tone: 'info' };
  if ((member.tasks.TASK_STATE_INPUT_REQUIRED ?? 0) > 0) return { label: 'needs input', tone: 'warn' };
  if ((member.tasks.TASK_STATE_WORKING ?? 0) + (member.tasks.TASK_STATE_SUBMITTED ?? 0) > 0) return { label: 'working', tone: 'info' };
  return { label: 'idle', tone: 'ok' };
}

const ENDED_TONE: Partial<Record<ConsoleMemberCall['status'], Tone>> = { completed: 'ok', abandoned: 'muted' };

/** A call's status as the view shows it; a call whose member answered but whose round is not delivered says so. */
export function callStatus(call: Pick<ConsoleMemberCall, 'status' | 'ended' | 'offers' | 'memberTaskState'>): Activity {
  if (call.ended) return { label: call.status.replace(/_/g, ' '), tone: ENDED_TONE[call.status] ?? 'bad' };
  if (call.status === 'offering') return { label: `offering (busy, ${call.offers} offer${call.offers === 1 ? '' : 's'})`, tone: 'warn' };
  if (call.memberTaskState !== null && isTerminalState(call.memberTaskState)) return { label: 'answered, awaiting the round', tone: 'info' };
  return { label: 'running', tone: 'info' };
}

/** From the call's start to its end, or to `nowMs` while it is in flight. @unit ms */
export function callElapsedMs(call: Pick<ConsoleMemberCall, 'ended' | 'elapsedMs' | 'startedAt' | 'endedAt'>, nowMs: number): number {
  const started = Date.parse(call.startedAt);
  if (call.ended) return call.elapsedMs ?? Math.max(0, Date.parse(call.endedAt ?? call.startedAt) - started);
  return Math.max(0, nowMs - started);
}

/** Calls in flight first, then ended ones; newest start first within each. */
export function orderCalls(calls: readonly ConsoleMemberCall[]): ConsoleMemberCall[] {
  return [...calls].sort((a, b) => Number(a.ended) - Number(b.ended) || b.startedAt.localeCompare(a.startedAt) || a.callId.localeCompare(b.callId));
}

/** Reads the body of `GET /api/formations`. */
export function readFormations(body: unknown): ConsoleFormation[] {
  const formations = (body as Partial<ConsoleFormationsResponse> | null)?.formations;
  if (!Array.isArray(formations)) throw new ConsoleApiError(`${CONSOLE_FORMATIONS_PATH} answered something that is not a formation list`, null);
  return formations.filter((f): f is ConsoleFormation => typeof f?.key === 'string' && Array.isArray(f.members) && Array.isArray(f.calls));
}
