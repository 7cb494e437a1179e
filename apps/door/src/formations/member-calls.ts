import type { TaskContinuations } from '../agent/task-continuations.js';
import { newId } from '../common/ids.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { FormationSeat, MemberLink } from '../seat/formation-seat.js';
import type { SessionContext } from '../session/session-context.js';
import type { TaskEndingHold } from '../tasks/task-ending-hold.js';
import type { OutboundA2a, OutboundA2aSource } from '../telemetry/trace-context.js';
import type { MemberCallPort } from '../tools/runtime/index.js';
import { type RuntimeToolAnswer, type ToolCallContext, ToolInputError } from '../tools/tool-call.js';
import { alreadyAnsweredRefusal, busyNote, endedNote, notYetAnsweredRefusal, rejectedOutput, startedNote } from './call-notes.js';
import type { Clock } from './clock.js';
import { type ContinuationInput, continuationText, type EndedCall } from './continuation.js';
import { allowsMemberDoor, W_RUN_008 } from './egress.js';
import { type CallState, ENDING_WAIT_MS, endedDuringOffer, inFlightOutput, type MemberDoorLike, runCall, sendOffer } from './member-call-run.js';
import { MemberDoor, offerTimedOut } from './member-client.js';
import { awaitOutstanding, Wakeups } from './outbound-round.js';

/** The manifest's key, else MURMUR_DELEGATION_TIMEOUT_SECS, else 600 s (docs/formations.md; the settings hold the last two). */
export function delegationDeadlineSecs(session: SessionContext): number {
  return session.manifest.lifecycle.delegation_deadline_secs ?? session.settings.delegationTimeoutSecs;
}

interface Call {
  state: CallState;
  startedMs: number;
  ended: EndedCall | null;
  /** Resolves once `ended` is set. */
  whenEnded: Promise<void>;
  markEnded: () => void;
  delivered: boolean;
  abort: AbortController;
}

interface TaskCalls {
  calls: Call[];
  /** The reason end-without-answer was accepted with, or null. */
  ending: string | null;
  sentBy: string | null;
  /** Each member's latest ended call in this task, across rounds. */
  latest: Map<string, EndedCall>;
  /** Woken as each of its calls ends, for the round that waits on them. */
  wakeups: Wakeups;
  /** The task's ending has begun (beforeEnd): no call is made, and each outstanding one is recorded as it ends. */
  ended: boolean;
  /** What the ending waits for: the outstanding calls winding down. */
  windingDown: Promise<void> | null;
}

export interface MemberCallsDeps {
  session: SessionContext;
  seat: FormationSeat;
  trace: TraceWriter;
  clock: Clock;
  /** The calling task's client spans for the outbound call (telemetry/); absent or null-answering when telemetry is off. */
  outbound?: OutboundA2aSource;
  /** Opens the outbound caller to one member's door: a `MemberDoor` unless a test hands its own. */
  openDoor?: (link: MemberLink, trust: 'trusted' | 'untrusted', outbound: OutboundA2a | null) => MemberDoorLike;
}

/**
 * A formation member's calls to other members (seed 004, "call-member"): answers the tool, drives each call in the
 * background, and gives the agent loop the continuation once every call of a task has ended.
 */
export class MemberCalls implements MemberCallPort, TaskContinuations, TaskEndingHold {
  private readonly tasks = new Map<string, TaskCalls>();
  readonly callees: readonly string[];

  constructor(private readonly deps: MemberCallsDeps) {
    this.callees = deps.seat.callees;
  }

  async call(member: string, text: string, ctx: ToolCallContext): Promise<RuntimeToolAnswer> {
    const { seat, trace, clock, session } = this.deps;
    if (!this.callees.includes(member)) throw new ToolInputError(`'${member}' is not a member this capsule may call; it may call ${this.callees.join(', ')}`);
    // No offer is sent once the calling task's ending has begun (seed 004, "A busy member").
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const task = this.tasksOf(ctx.taskId, ctx.sentBy ?? null);
    if (task.ended) throw new ToolInputError("'call-member' is answered only while a task runs, and this task is ending; nothing was sent.");
    if (task.ending !== null) throw new ToolInputError("'call-member' makes no call from a task that is ending without an answer.");
    const earlier = task.calls.find((c) => c.state.member === member && !c.delivered);
    if (earlier)
      throw new ToolInputError(earlier.ended ? alreadyAnsweredRefusal(member, earlier.state.callId) : notYetAnsweredRefusal(member, earlier.state.callId));

    const deadlineSecs = delegationDeadlineSecs(session);
    const abort = new AbortController();
    let markEnded = () => {};
    const whenEnded = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    // One reading for both: the deadline is exactly deadlineSecs after the start (two readings a millisecond apart
    // recorded a call timed out at 4 s as 3,999 ms long).
    const startedMs = clock.now();
    const call: Call = {
      state: {
        callId: newId('memberCall'),
        member,
        text,
        deadlineSecs,
        deadlineMs: startedMs + deadlineSecs * 1000,
        signal: abort.signal,
        memberTaskId: null,
        offers: 1,
        offerOnItsWay: null,
      },
      startedMs,
      ended: null,
      whenEnded,
      markEnded,
      delivered: false,
      abort,
    };
    task.calls.push(call);
    const { callId } = call.state;
    const endAtOnce = (status: 'rejected' | 'failed', output: string): RuntimeToolAnswer => {
      this.end(ctx.taskId, call, { callId, member, status, output, below: [] });
      call.delivered = true;
      this.record(ctx.taskId, call, true);
      return { data: JSON.stringify({ call_id: callId, member, status, output }), note: endedNote(member, callId, status, task.sentBy), failed: true };
    };

    const link = seat.link(member);
    if (!link) return endAtOnce('failed', `the formation has not handed this member ${member}'s door yet; nothing was sent`);
    if (!allowsMemberDoor(session.manifest.capabilities.network.allow, new URL(link.url), seat.doors)) {
      return endAtOnce('failed', `${member}'s door is on localhost, which capabilities.network.allow does not list (${W_RUN_008}); nothing was sent`);
    }
    const openDoor = this.deps.openDoor ?? ((l, trust, outbound) => new MemberDoor(l, trust, outbound));
    const door = openDoor(link, ctx.trust ?? 'trusted', this.deps.outbound?.outboundFor(ctx.taskId) ?? null);
    const runDeps = { door, clock, trace, callingTaskId: ctx.taskId, rosterMembers: seat.members };
    const answer = await sendOffer(call.state, door);
    if (call.state.signal.aborted) {
      // The calling task began ending while this first offer was on its way: as for any offer on its way (seed 004).
      const outcome = await endedDuringOffer(call.state, answer, runDeps);
      this.end(ctx.taskId, call, outcome);
      return { data: JSON.stringify({ call_id: callId, member, status: outcome.status, output: outcome.output }), failed: true };
    }
    const drive = (phase: 'offering' | 'running') => {
      void runCall(call.state, phase, runDeps).then(
        (outcome) => this.end(ctx.taskId, call, outcome),
        (error: unknown) => this.end(ctx.taskId, call, { callId, member, status: 'failed', output: (error as Error).message, below: [] }),
      );
    };
    switch (answer.kind) {
      case 'taken':
        call.state.memberTaskId = answer.task.id;
        trace.write('member_call_start', { task_id: ctx.taskId, call_id: callId, member, member_task_id: answer.task.id, offers: 1 });
        drive('running');
        return { data: JSON.stringify({ call_id: callId, member, status: 'started', task_id: answer.task.id }), note: startedNote(member, callId) };
      case 'busy': {
        trace.write('member_call_busy', { task_id: ctx.taskId, call_id: callId, member, offer: 1 });
        drive('offering');
        const output = rejectedOutput(member, 'task rejected: capsule is busy');
        return { data: JSON.stringify({ call_id: callId, member, status: 'busy', output }), note: busyNote(member, callId, deadlineSecs) };
      }
      case 'rejected':
        return endAtOnce('rejected', rejectedOutput(member, answer.message));
      case 'failed':
      case 'no-answer':
        return endAtOnce('failed', `${member}'s door could not be reached: ${answer.why}`);
      default: {
        const unreachable: never = answer;
        throw new Error(`unknown offer answer ${JSON.stringify(unreachable)}`);
      }
    }
  }

  endWithoutAnswer(reason: string, ctx: ToolCallContext): RuntimeToolAnswer {
    const task = this.tasksOf(ctx.taskId, ctx.sentBy ?? null);
    if (task.sentBy === null) {
      throw new ToolInputError(
        "'end-without-answer' ends only a task another formation member sent; no formation member sent this one. Reply in text, saying plainly which part has no answer.",
      );
    }
    const out = task.calls.find((c) => !c.delivered);
    if (out)
      throw new ToolInputError(
        `Call ${out.state.callId} to ${out.state.member} is still out; its answer arrives after you end your turn. Call end-without-answer only when no call is left to wait for.`,
      );
    if (reason.trim() === '') throw new ToolInputError("'end-without-answer' needs a reason: say in a sentence why you have no answer.");
    if (task.ending !== null) throw new ToolInputError('This task is already ending without an answer.');
    task.ending = reason;
    return {
      data: JSON.stringify({ status: 'ending', caller: task.sentBy }),
      note: `[end-without-answer] This task ends without an answer once this turn's tool calls finish, and ${task.sentBy} is told you gave none.`,
    };
  }

  /** The task was reopened (an on_task_end hook): the end-without-answer it had accepted no longer ends it. */
  reopened(taskId: string): void {
    const task = this.tasks.get(taskId);
    if (task) task.ending = null;
  }

  endingWithoutAnswer(taskId: string): string | null {
    return this.tasks.get(taskId)?.ending ?? null;
  }

  noAnswerBelow(taskId: string): { member: string; status: string }[] {
    const latest = [...(this.tasks.get(taskId)?.latest.values() ?? [])];
    const named = new Map<string, string>();
    for (const call of latest) if (call.status !== 'completed') named.set(call.member, call.status);
    for (const call of latest) for (const below of call.below) if (!named.has(below.member)) named.set(below.member, below.status);
    return [...named].slice(0, 8).map(([member, status]) => ({ member, status }));
  }

  /** Whether the task has calls whose answers are not yet delivered. */
  pending(taskId: string): number {
    return this.tasks.get(taskId)?.calls.filter((c) => !c.delivered).length ?? 0;
  }

  /**
   * Waits until every undelivered call of the task has ended, then marks them delivered: this round's answers, each
   * member's latest call across rounds, and who sent the task — what the continuation is built from.
   */
  async awaitRound(taskId: string, signal: AbortSignal, onStatus: (text: string) => void): Promise<ContinuationInput> {
    const task = this.tasks.get(taskId);
    const round = task?.calls.filter((c) => !c.delivered) ?? [];
    if (!task || round.length === 0) return { answers: [], latest: [], sentBy: task?.sentBy ?? null };
    const outstanding = () => round.filter((c) => c.ended === null).length;
    await awaitOutstanding(outstanding, task.wakeups, signal, onStatus, (left) => `waiting on call-member: ${left} call(s) outstanding`);
    for (const call of round) {
      call.delivered = true;
      this.record(taskId, call, true);
    }
    return { answers: round.map((c) => c.ended!), latest: [...task.latest.values()], sentBy: task.sentBy };
  }

  async continuation(taskId: string, signal: AbortSignal, onStatus: (text: string) => void): Promise<string | null> {
    if (this.pending(taskId) === 0) return null;
    const input = await this.awaitRound(taskId, signal, onStatus);
    onStatus(`continuing with ${input.answers.length} member answer(s)`);
    this.deps.trace.write('task_continued', { task_id: taskId, answers: input.answers.length, delegations: 0 });
    return continuationText(input);
  }

  /**
   * The calling task is ending (the lifecycle asks before it writes the ending): its undelivered answers are recorded
   * now, and each outstanding call is abandoned — re-offers and reads stop at once; an offer on its way is waited for,
   * up to ENDING_WAIT_MS on the clock (seed 004, "A busy member"). Resolves once every such call is recorded; null
   * when nothing was outstanding.
   */
  beforeEnd(taskId: string): Promise<void> | null {
    const task = this.tasks.get(taskId);
    if (!task) return null;
    if (task.ended) return task.windingDown;
    task.ended = true;
    const outstanding: Call[] = [];
    for (const call of task.calls) {
      if (call.delivered) continue;
      call.delivered = true;
      if (call.ended) this.record(taskId, call, false);
      else outstanding.push(call);
    }
    if (outstanding.length === 0) return null;
    for (const call of outstanding) call.abort.abort(new Error('the calling task ended'));
    task.windingDown = this.windDown(taskId, outstanding);
    return task.windingDown;
  }

  /** Waits for the abandoned calls to end, at most ENDING_WAIT_MS; an offer still unanswered then is given up. */
  private async windDown(taskId: string, calls: Call[]): Promise<void> {
    const stop = new AbortController();
    const waited = this.deps.clock.sleep(ENDING_WAIT_MS, stop.signal).then(
      () => true,
      () => false,
    );
    const timedOut = await Promise.race([Promise.all(calls.map((c) => c.whenEnded)).then(() => false), waited]);
    stop.abort();
    if (!timedOut) return;
    for (const call of calls) {
      const offer = call.state.offerOnItsWay;
      // A call whose offer was answered is still winding down (a CancelTask on its way): recorded when it ends.
      if (call.ended || !offer) continue;
      this.end(taskId, call, {
        callId: call.state.callId,
        member: call.state.member,
        status: 'abandoned',
        output: inFlightOutput(call.state.member),
        below: [],
      });
      offer.abort(offerTimedOut());
    }
  }

  settle(taskId: string): void {
    const task = this.tasks.get(taskId);
    if (!task) return;
    this.tasks.delete(taskId);
    // Its ending (beforeEnd) has accounted for every call.
    if (task.ended) return;
    for (const call of task.calls) {
      if (call.delivered) continue;
      if (call.ended) this.record(taskId, call, false);
      else {
        // Recorded once the call has wound down (an offer on its way may still decide what is left behind).
        call.abort.abort(new Error('the calling task ended'));
        call.delivered = true;
      }
    }
  }

  private tasksOf(taskId: string, sentBy: string | null): TaskCalls {
    let task = this.tasks.get(taskId);
    if (!task) {
      task = { calls: [], sentBy, ending: null, latest: new Map(), wakeups: new Wakeups(), ended: false, windingDown: null };
      this.tasks.set(taskId, task);
    }
    return task;
  }

  private end(taskId: string, call: Call, outcome: EndedCall): void {
    if (call.ended) return;
    call.ended = outcome;
    call.markEnded();
    const task = this.tasks.get(taskId);
    if (!task || task.ended) {
      // The calling task has ended, or is ending: the call is accounted for now, abandoned.
      this.record(taskId, call, false);
      return;
    }
    task.latest.set(call.state.member, outcome);
    task.wakeups.wake();
  }

  private record(taskId: string, call: Call, delivered: boolean): void {
    const ended = call.ended;
    const status = ended?.status ?? 'abandoned';
    this.deps.trace.write('member_call', {
      task_id: taskId,
      call_id: call.state.callId,
      member: call.state.member,
      status,
      // An abandoned call's output is delivered nowhere: its sentence (seed 004, "A busy member") is kept here.
      ...(status === 'abandoned' && ended ? { output: ended.output } : {}),
      member_task_id: call.state.memberTaskId,
      offers: call.state.offers,
      elapsed_ms: this.deps.clock.now() - call.startedMs,
      delivered,
    });
  }
}
