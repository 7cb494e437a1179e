/** A busy member's re-offers on an injected clock (seed 004, "A busy member"): 1 s doubling to 8 s, plus jitter. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Task } from '@murmur/protocol';
import type { TraceWriter } from '../records/trace-writer.js';
import type { Clock } from './clock.js';
import { type CallState, type MemberDoorLike, runCall } from './member-call-run.js';
import type { OfferAnswer, ReadAnswer } from './member-client.js';

function fakeClock(jitter: number): Clock & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
    },
    jitterMs: () => jitter,
  };
}

function call(deadlineSecs: number, signal = new AbortController().signal): CallState {
  return {
    callId: 'mcl_x',
    member: 'worker',
    text: 'do it',
    deadlineSecs,
    deadlineMs: deadlineSecs * 1000,
    signal,
    memberTaskId: null,
    offers: 1,
    offerOnItsWay: null,
  };
}

const records: { type: string; fields: Record<string, unknown> }[] = [];
const trace = { write: (type: string, fields: Record<string, unknown>) => records.push({ type, fields }) } as unknown as TraceWriter;

function door(offers: OfferAnswer[], reads: ReadAnswer[]): MemberDoorLike & { offered: number } {
  const fake = {
    offered: 0,
    offer: async () => {
      fake.offered += 1;
      return offers.shift() ?? { kind: 'busy' as const };
    },
    read: async () => reads.shift() ?? { kind: 'no-answer' as const, why: 'gone' },
    cancel: async () => undefined,
  };
  return fake;
}

const task = (state: Task['status']['state'], text?: string): Task => ({
  id: 'tsk_m',
  contextId: 'ctx_m',
  status: { state, timestamp: '2026-12-01T00:00:00.000Z' },
  ...(text === undefined ? {} : { artifacts: [{ artifactId: 'response', name: 'response', parts: [{ text }] }] }),
});

test('a member that stays busy is offered the task after 1, 2, 4, 8, 8 s (plus jitter) until the deadline', async () => {
  const clock = fakeClock(200);
  records.length = 0;
  const ended = await runCall(call(30), 'offering', { door: door([], []), clock, trace, callingTaskId: 'tsk_c', rosterMembers: ['worker'] });
  // 1.2 + 2.2 + 4.2 + 8.2 + 8.2 = 23.999.. s; the next 8.2 s would pass 30 s, so the call waits out the deadline.
  assert.deepEqual(clock.sleeps.slice(0, 5), [1200, 2200, 4200, 8200, 8200]);
  assert.equal(clock.now(), 30_000);
  assert.equal(ended.status, 'rejected');
  assert.equal(
    ended.output,
    'worker stayed busy with other work for the whole 30s this call may wait and never took the task; it was offered the task 6 times. Nothing was done on it.',
  );
  assert.equal(records.filter((r) => r.type === 'member_call_busy').length, 5);
});

test('taken on a re-offer, then read every 500 ms until it completes', async () => {
  const clock = fakeClock(0);
  records.length = 0;
  const working: ReadAnswer = { kind: 'task', task: task('TASK_STATE_WORKING') };
  const fake = door(
    [{ kind: 'busy' }, { kind: 'taken', task: task('TASK_STATE_SUBMITTED') }],
    [working, working, { kind: 'task', task: task('TASK_STATE_COMPLETED', 'DONE') }],
  );
  const ended = await runCall(call(600), 'offering', { door: fake, clock, trace, callingTaskId: 'tsk_c', rosterMembers: ['worker'] });
  assert.deepEqual(clock.sleeps, [1000, 2000, 500, 500, 500]);
  assert.deepEqual({ status: ended.status, output: ended.output }, { status: 'completed', output: 'DONE' });
  assert.deepEqual(
    records.map((r) => r.type),
    ['member_call_busy', 'member_call_start'],
  );
});

test('two reads in a row with no answer: unreachable; one miss is forgiven', async () => {
  const clock = fakeClock(0);
  const working: ReadAnswer = { kind: 'task', task: task('TASK_STATE_WORKING') };
  const miss: ReadAnswer = { kind: 'no-answer', why: 'ECONNREFUSED' };
  const state = { ...call(600), memberTaskId: 'tsk_m' };
  const ended = await runCall(state, 'running', {
    door: door([], [miss, working, miss, miss]),
    clock,
    trace,
    callingTaskId: 'tsk_c',
    rosterMembers: ['worker'],
  });
  assert.equal(ended.status, 'unreachable');
  assert.equal(clock.now(), 2000);
});

test('the deadline passes while the member works: timed_out', async () => {
  const clock = fakeClock(0);
  const working: ReadAnswer = { kind: 'task', task: task('TASK_STATE_WORKING') };
  const state = { ...call(2), memberTaskId: 'tsk_m' };
  const ended = await runCall(state, 'running', { door: door([], Array(10).fill(working)), clock, trace, callingTaskId: 'tsk_c', rosterMembers: ['worker'] });
  assert.equal(ended.status, 'timed_out');
  assert.equal(ended.output, 'worker did not answer within 2s; it was not cancelled and may still be working');
  assert.equal(clock.now(), 2000);
});

test('the calling task ends while the member is busy: abandoned, never handed it', async () => {
  const clock = fakeClock(0);
  const abort = new AbortController();
  abort.abort(new Error('ended'));
  const ended = await runCall(call(600, abort.signal), 'offering', { door: door([], []), clock, trace, callingTaskId: 'tsk_c', rosterMembers: ['worker'] });
  assert.equal(ended.status, 'abandoned');
  assert.equal(ended.output, 'the calling task ended before worker took the task; worker was busy and was never handed it');
});

/** A door whose second offer is answered only after the calling task has ended (the abort). */
function endsDuringOffer(second: OfferAnswer, abort: AbortController): MemberDoorLike & { canceled: string[] } {
  const canceled: string[] = [];
  let offers = 0;
  return {
    canceled,
    offer: async () => {
      offers += 1;
      if (offers === 1) return { kind: 'busy' };
      abort.abort(new Error('ended'));
      return second;
    },
    read: async () => ({ kind: 'no-answer', why: 'gone' }),
    cancel: async (id: string) => {
      canceled.push(id);
    },
  };
}

test('the calling task ends while an offer is on its way: each answer to that offer decides how the call ends', async () => {
  const run = async (second: OfferAnswer) => {
    records.length = 0;
    const abort = new AbortController();
    const fake = endsDuringOffer(second, abort);
    const state = call(600, abort.signal);
    state.offers = 0;
    // The first offer (the tool call's own) is made before runCall; here the fake's first answer is one re-offer.
    const ended = await runCall(state, 'offering', { door: fake, clock: fakeClock(0), trace, callingTaskId: 'tsk_c', rosterMembers: ['worker'] });
    return { ended, canceled: fake.canceled, busy: records.filter((r) => r.type === 'member_call_busy').map((r) => r.fields.offer), state };
  };
  const busy = await run({ kind: 'busy' });
  assert.deepEqual(
    [busy.ended.status, busy.ended.output, busy.busy],
    ['abandoned', 'the calling task ended before worker took the task; worker was busy and was never handed it', [1, 2]],
  );
  const taken = await run({ kind: 'taken', task: task('TASK_STATE_SUBMITTED') });
  assert.deepEqual(
    [taken.ended.status, taken.ended.output, taken.canceled, taken.state.memberTaskId],
    ['abandoned', 'the calling task ended just after worker took the task; a cancel was sent to worker', ['tsk_m'], 'tsk_m'],
  );
  const silent = await run({ kind: 'no-answer', why: 'timed out' });
  assert.deepEqual(
    [silent.ended.status, silent.ended.output, silent.state.memberTaskId],
    ['abandoned', 'the calling task ended while an offer to worker was in flight; worker may hold the task', null],
  );
});
