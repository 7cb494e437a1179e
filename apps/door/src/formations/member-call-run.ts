import { type Task, isTerminalState } from '@murmur/protocol';
import { statusText } from '../egress/door-call.js';
import type { TraceWriter } from '../records/trace-writer.js';
import { rejectedOutput, stayedBusyOutput } from './call-notes.js';
import type { Clock } from './clock.js';
import type { CallStatus, EndedCall } from './continuation.js';
import { type MemberDoor, OFFER_TIMEOUT_MS, type OfferAnswer, offerTimedOut, type ReadAnswer } from './member-client.js';

/** How often the member's task is read (seed 004, "Bound"). */
const POLL_MS = 500;
/** A busy member's re-offers: 1 s, doubling, at most 8 s, each plus up to 250 ms of jitter. */
const FIRST_REOFFER_MS = 1_000;
const MAX_REOFFER_MS = 8_000;
/**
 * How long a calling task that ends while an offer is on its way waits for that offer's answer before it ends (seed
 * 004, "A busy member"), on the formations' clock. From the ending on, this wait, not the offer's own timeout, bounds
 * the offer.
 */
export const ENDING_WAIT_MS = 6_000;
/** Two reads, or two offers, in a row with no answer: unreachable. */
const MISSES_FOR_UNREACHABLE = 2;
/** At most this many names of noAnswerBelow are kept (seed 000, "Task metadata"). */
const BELOW_CAP = 8;

export interface CallState {
  readonly callId: string;
  readonly member: string;
  readonly text: string;
  readonly deadlineMs: number;
  readonly deadlineSecs: number;
  /** Aborts when the calling task ends: the call is then abandoned. */
  readonly signal: AbortSignal;
  memberTaskId: string | null;
  offers: number;
  /** The offer on its way, while one is: aborting it gives that offer up as unanswered. */
  offerOnItsWay: AbortController | null;
}

/** The member door as a call reads it: a fake in tests. */
export type MemberDoorLike = Pick<MemberDoor, 'offer' | 'read' | 'cancel'>;

export interface CallRunDeps {
  door: MemberDoorLike;
  clock: Clock;
  trace: TraceWriter;
  callingTaskId: string;
  /** Names a noAnswerBelow entry may carry: the roster's members. */
  rosterMembers: readonly string[];
}

const ended = (call: CallState, status: CallStatus, output: string, below: EndedCall['below'] = []): EndedCall => ({
  callId: call.callId,
  member: call.member,
  status,
  output,
  below,
});

/** The calling task ended while an offer was on its way and no answer came within ENDING_WAIT_MS (seed 004). */
export const inFlightOutput = (member: string): string => `the calling task ended while an offer to ${member} was in flight; ${member} may hold the task`;
const neverHandedOutput = (member: string): string => `the calling task ended before ${member} took the task; ${member} was busy and was never handed it`;

/**
 * Sends one offer of the call's task. It counts as unanswered after OFFER_TIMEOUT_MS while the calling task runs;
 * once the task ends (the call's signal), that timeout stops and the ending's wait (ENDING_WAIT_MS, MemberCalls)
 * bounds the offer through `offerOnItsWay`. No offer is sent once the calling task has ended.
 */
export async function sendOffer(call: CallState, door: MemberDoorLike): Promise<OfferAnswer> {
  call.signal.throwIfAborted();
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(offerTimedOut()), OFFER_TIMEOUT_MS);
  const ending = () => clearTimeout(timer);
  call.signal.addEventListener('abort', ending, { once: true });
  call.offerOnItsWay = giveUp;
  try {
    return await door.offer(call.text, giveUp.signal);
  } finally {
    clearTimeout(timer);
    call.signal.removeEventListener('abort', ending);
    call.offerOnItsWay = null;
  }
}

/**
 * How a call ends whose offer was on its way when the calling task ended (seed 004, "A busy member"): a busy
 * refusal writes that offer's member_call_busy; a member that took the task is sent CancelTask before the call ends.
 */
export async function endedDuringOffer(
  call: CallState,
  answer: OfferAnswer,
  { door, trace, callingTaskId }: Pick<CallRunDeps, 'door' | 'trace' | 'callingTaskId'>,
): Promise<EndedCall> {
  switch (answer.kind) {
    case 'busy':
      trace.write('member_call_busy', { task_id: callingTaskId, call_id: call.callId, member: call.member, offer: call.offers });
      return ended(call, 'abandoned', neverHandedOutput(call.member));
    case 'taken':
      call.memberTaskId = answer.task.id;
      await door.cancel(answer.task.id);
      return ended(call, 'abandoned', `the calling task ended just after ${call.member} took the task; a cancel was sent to ${call.member}`);
    case 'no-answer':
      return ended(call, 'abandoned', inFlightOutput(call.member));
    default:
      return ended(call, 'abandoned', neverHandedOutput(call.member));
  }
}

/**
 * Drives one outstanding call to its end (seed 004, "A busy member", "How the answer arrives"): re-offers a busy
 * member until it takes the task or the deadline passes, then reads its task every 500 ms until it ends. The
 * calling task ending (the signal) abandons the call.
 */
export async function runCall(call: CallState, phase: 'offering' | 'running', deps: CallRunDeps): Promise<EndedCall> {
  try {
    if (phase === 'offering') {
      const offered = await reoffer(call, deps);
      if (offered) return offered;
    }
    return await poll(call, deps);
  } catch (error) {
    if (!call.signal.aborted) throw error;
    return call.memberTaskId === null
      ? ended(call, 'abandoned', neverHandedOutput(call.member))
      : ended(call, 'abandoned', `the calling task ended while ${call.member} was working on call ${call.callId}; its task was left running`);
  }
}

/** Re-offers until taken (returns null, memberTaskId set) or the call ends (returns how). */
async function reoffer(call: CallState, deps: CallRunDeps): Promise<EndedCall | null> {
  const { door, clock, trace, callingTaskId } = deps;
  let wait = FIRST_REOFFER_MS;
  let misses = 0;
  for (;;) {
    const delay = wait + clock.jitterMs();
    wait = Math.min(wait * 2, MAX_REOFFER_MS);
    if (clock.now() + delay >= call.deadlineMs) {
      await clock.sleep(Math.max(0, call.deadlineMs - clock.now()), call.signal);
      return ended(call, 'rejected', stayedBusyOutput(call.member, call.deadlineSecs, call.offers));
    }
    await clock.sleep(delay, call.signal);
    call.signal.throwIfAborted();
    call.offers += 1;
    // An offer on its way is not cut short by the calling task ending: its answer decides what is left behind.
    const answer = await sendOffer(call, door);
    if (call.signal.aborted) return endedDuringOffer(call, answer, deps);
    switch (answer.kind) {
      case 'busy':
        misses = 0;
        trace.write('member_call_busy', { task_id: callingTaskId, call_id: call.callId, member: call.member, offer: call.offers });
        break;
      case 'no-answer':
        misses += 1;
        if (misses >= MISSES_FOR_UNREACHABLE) return ended(call, 'unreachable', `${call.member}'s door stopped answering`);
        break;
      case 'taken':
        call.memberTaskId = answer.task.id;
        trace.write('member_call_start', {
          task_id: callingTaskId,
          call_id: call.callId,
          member: call.member,
          member_task_id: answer.task.id,
          offers: call.offers,
        });
        return null;
      case 'rejected':
        return ended(call, 'rejected', rejectedOutput(call.member, answer.message));
      case 'failed':
        return ended(call, 'failed', answer.why);
      default: {
        const unreachable: never = answer;
        throw new Error(`unknown offer answer ${JSON.stringify(unreachable)}`);
      }
    }
  }
}

async function poll(call: CallState, { door, clock, rosterMembers }: CallRunDeps): Promise<EndedCall> {
  let misses = 0;
  for (;;) {
    const left = call.deadlineMs - clock.now();
    if (left <= 0) return ended(call, 'timed_out', `${call.member} did not answer within ${call.deadlineSecs}s; it was not cancelled and may still be working`);
    await clock.sleep(Math.min(POLL_MS, left), call.signal);
    if (clock.now() >= call.deadlineMs) continue;
    const read = await readByDeadline(call, door, clock);
    // The deadline passed while the read was out: the loop's next turn ends the call timed_out.
    if (read === null) continue;
    if (read.kind === 'no-answer') {
      misses += 1;
      if (misses >= MISSES_FOR_UNREACHABLE) return ended(call, 'unreachable', `${call.member}'s door stopped answering`);
      continue;
    }
    misses = 0;
    if (read.kind === 'failed') return ended(call, 'failed', read.why);
    const outcome = taskOutcome(call, read.task, rosterMembers);
    if (outcome) return outcome;
  }
}

/**
 * One read of the member's task, raced against the call's deadline (seed 004: "The wait is bounded by each call's
 * own deadline"): a read still out when the deadline passes is given up (aborted) and answers null, so the call ends
 * timed_out at its deadline, not a read's timeout later. The race is a real timer set to what the clock says is left,
 * as a read's own 2 s is the HTTP request's; the calling task ending aborts the read as before.
 */
async function readByDeadline(call: CallState, door: MemberDoorLike, clock: Clock): Promise<ReadAnswer | null> {
  call.signal.throwIfAborted();
  const read = new AbortController();
  const follow = () => read.abort(call.signal.reason);
  call.signal.addEventListener('abort', follow, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(
      () => {
        resolve(null);
        read.abort(new DOMException('the call reached its deadline', 'TimeoutError'));
      },
      Math.max(0, call.deadlineMs - clock.now()),
    );
  });
  try {
    const answer = door.read(call.memberTaskId!, read.signal);
    // Once the deadline won, the given-up read's rejection has nothing left to tell.
    answer.catch(() => undefined);
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
    call.signal.removeEventListener('abort', follow);
  }
}

/** How a member's task, as GetTask reads it, ends the call; null while it is still working. */
function taskOutcome(call: Pick<CallState, 'callId' | 'member'>, task: Task, rosterMembers: readonly string[]): EndedCall | null {
  const state = task.status.state;
  const message = statusText(task);
  const murmur = task.metadata?.murmur as { noAnswer?: boolean; noAnswerBelow?: { member: string; status: string }[] } | undefined;
  const below = (murmur?.noAnswerBelow ?? []).filter((b) => rosterMembers.includes(b.member) && b.status !== 'completed').slice(0, BELOW_CAP);
  const end = (status: CallStatus, output: string, keepBelow = false) => ({
    callId: call.callId,
    member: call.member,
    status,
    output,
    below: keepBelow ? below : [],
  });
  if (state === 'TASK_STATE_INPUT_REQUIRED') {
    const prompt = task.artifacts?.find((a) => a.artifactId === 'prompt');
    return end('failed', `${call.member} asked for input, which a formation call cannot give: ${prompt ? partsOf(prompt.parts) : ''}`.trimEnd());
  }
  if (!isTerminalState(state)) return null;
  switch (state) {
    case 'TASK_STATE_COMPLETED': {
      const response = task.artifacts?.find((a) => a.artifactId === 'response');
      return end('completed', response ? partsOf(response.parts) : '', true);
    }
    case 'TASK_STATE_FAILED':
      return murmur?.noAnswer === true
        ? end('no_answer', message ?? `${call.member} ended its task without an answer`, true)
        : end('failed', message ?? `${call.member}'s task failed`);
    case 'TASK_STATE_CANCELED':
      return end('canceled', message ?? `${call.member}'s task was canceled`);
    case 'TASK_STATE_REJECTED':
      return end('rejected', rejectedOutput(call.member, message));
    default:
      return end('failed', `${call.member}'s task ended ${state}`);
  }
}

function partsOf(parts: { text?: string }[]): string {
  return parts.map((p) => p.text ?? '').join('');
}
