/**
 * call-member's results as the tool returns them (seed 004, "What a call returns"), for answers a healthy door gives
 * only in a narrow window — a first offer refused for a reason other than busy (a closing session) — and the busy
 * note's deadline: the manifest's key, else MURMUR_DELEGATION_TIMEOUT_SECS; and the calling task's ending held for an
 * offer on its way (seed 004, "A busy member"), on a clock the test moves. The door is a fake `MemberDoorLike`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSettings } from '../config/settings.js';
import type { SessionContext } from '../session/session-context.js';
import { FormationSeat } from '../seat/formation-seat.js';
import type { TraceWriter } from '../records/trace-writer.js';
import { type Clock, SYSTEM_CLOCK } from './clock.js';
import { ENDING_WAIT_MS, type MemberDoorLike } from './member-call-run.js';
import { delegationDeadlineSecs, MemberCalls } from './member-calls.js';
import type { OfferAnswer } from './member-client.js';

const session = (deadline?: number, env: Record<string, string> = {}) =>
  ({
    manifest: { lifecycle: { delegation_deadline_secs: deadline }, capabilities: { network: { allow: ['localhost'] } } },
    settings: readSettings(env),
  }) as unknown as SessionContext;

function calls(offer: OfferAnswer, deadline?: number, env: Record<string, string> = {}) {
  const records: { type: string; fields: Record<string, unknown> }[] = [];
  const trace = { write: (type: string, fields: Record<string, unknown>) => records.push({ type, fields }) } as unknown as TraceWriter;
  const seat = new FormationSeat('f', 'planner', ['worker'], [], ['planner', 'worker']);
  seat.seat(new Map([['worker', { url: 'http://127.0.0.1:40001', token: 'mur_x' }]]), []);
  const door: MemberDoorLike = { offer: async () => offer, read: async () => ({ kind: 'no-answer', why: 'gone' }), cancel: async () => undefined };
  const memberCalls = new MemberCalls({ session: session(deadline, env), seat, trace, clock: SYSTEM_CLOCK, openDoor: () => door });
  return { memberCalls, records };
}

const ctx = (sentBy: string | null) => ({ taskId: 'tsk_c', signal: new AbortController().signal, onOutput: () => undefined, sentBy });

test('a refusal other than busy: rejected at once, data and note as the seed gives them, recorded delivered', async () => {
  const { memberCalls, records } = calls({ kind: 'rejected', message: 'task rejected: the session is closing' });
  const answer = await memberCalls.call('worker', 'do it', ctx(null));
  const data = JSON.parse(answer.data) as Record<string, string>;
  assert.match(data.call_id, /^mcl_[0-9a-f]{32}$/);
  assert.deepEqual(data, { call_id: data.call_id, member: 'worker', status: 'rejected', output: 'worker did not take the task: the session is closing' });
  assert.equal(answer.failed, true);
  assert.equal(
    answer.note,
    `[call-member] Call ${data.call_id} to worker ended rejected, with no answer from worker. Do not present an answer of your own as worker's.`,
  );
  assert.deepEqual(
    records.map((r) => [r.type, r.fields.status, r.fields.delivered]),
    [['member_call', 'rejected', true]],
  );
  assert.equal(memberCalls.pending('tsk_c'), 0, 'nothing is outstanding: the call ended in the same turn');
});

test('for a task another member sent, the rejected note goes on to end-without-answer, naming that member', async () => {
  const { memberCalls } = calls({ kind: 'rejected', message: null });
  const answer = await memberCalls.call('worker', 'do it', ctx('boss'));
  const data = JSON.parse(answer.data) as Record<string, string>;
  assert.equal(data.output, 'worker did not take the task');
  assert.equal(
    answer.note,
    `[call-member] Call ${data.call_id} to worker ended rejected, with no answer from worker. Do not present an answer of your own as worker's. If you have no answer to give without worker, call end-without-answer with the reason: the runtime then tells boss plainly that you gave none.`,
  );
});

test('a busy member: the note names the deadline, the manifest key over MURMUR_DELEGATION_TIMEOUT_SECS', async () => {
  const keyed = calls({ kind: 'busy' }, 45).memberCalls;
  const fromKey = await keyed.call('worker', 'x', ctx(null));
  // The calling task ends: the background re-offers stop.
  keyed.settle('tsk_c');
  assert.match(fromKey.note!, /keeps offering it the task for up to 45s/);
  assert.deepEqual(JSON.parse(fromKey.data).output, 'worker is busy with other work and did not take the task');
  const seven = { MURMUR_DELEGATION_TIMEOUT_SECS: '7' };
  assert.equal(delegationDeadlineSecs(session(undefined, seven)), 7);
  assert.equal(delegationDeadlineSecs(session(45, seven)), 45);
  const unkeyed = calls({ kind: 'busy' }, undefined, seven).memberCalls;
  const fromEnv = await unkeyed.call('worker', 'x', ctx(null));
  unkeyed.settle('tsk_c');
  assert.match(fromEnv.note!, /keeps offering it the task for up to 7s/);
  assert.equal(delegationDeadlineSecs(session()), 600);
  // A value that is not whole seconds is refused when the environment is read, at the process's start (it was ignored).
  assert.throws(() => readSettings({ MURMUR_DELEGATION_TIMEOUT_SECS: 'soon' }), {
    name: 'SettingsError',
    message: 'the environment:\n  MURMUR_DELEGATION_TIMEOUT_SECS: found "soon"; allowed: whole seconds from 1',
  });
});

/** A clock whose sleeps end only when the test lets them (each advancing `now` by its length). */
function manualClock() {
  let now = 0;
  const sleeps: { ms: number; wake: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const sleep = {
          ms,
          wake: () => {
            sleeps.splice(sleeps.indexOf(sleep), 1);
            now += ms;
            resolve();
          },
        };
        sleeps.push(sleep);
        signal?.addEventListener(
          'abort',
          () => {
            if (sleeps.includes(sleep)) sleeps.splice(sleeps.indexOf(sleep), 1);
            reject(signal.reason);
          },
          { once: true },
        );
      }),
    jitterMs: () => 0,
  };
  return { clock, sleeps };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A call whose first offer is turned away busy and whose re-offer is held on its way until the test answers it: the
 * calling task then begins ending (beforeEnd, as the lifecycle asks before it writes the ending).
 */
async function endingDuringReoffer() {
  const records: { type: string; fields: Record<string, unknown> }[] = [];
  const trace = { write: (type: string, fields: Record<string, unknown>) => records.push({ type, fields }) } as unknown as TraceWriter;
  const seat = new FormationSeat('f', 'planner', ['worker'], [], ['planner', 'worker']);
  seat.seat(new Map([['worker', { url: 'http://127.0.0.1:40001', token: 'mur_x' }]]), []);
  const { clock, sleeps } = manualClock();
  const offer: { answer?: (a: OfferAnswer) => void; giveUp?: AbortSignal; count: number } = { count: 0 };
  const canceled: string[] = [];
  const door: MemberDoorLike = {
    offer: (_text, giveUp) => {
      offer.count += 1;
      if (offer.count === 1) return Promise.resolve({ kind: 'busy' });
      offer.giveUp = giveUp;
      return new Promise((resolve) => {
        offer.answer = resolve;
        giveUp.addEventListener('abort', () => resolve({ kind: 'no-answer', why: 'given up' }), { once: true });
      });
    },
    read: async () => ({ kind: 'no-answer', why: 'gone' }),
    cancel: async (id) => {
      canceled.push(id);
    },
  };
  const memberCalls = new MemberCalls({ session: session(600), seat, trace, clock, openDoor: () => door });
  await memberCalls.call('worker', 'do it', ctx(null));
  await settle();
  assert.deepEqual(
    sleeps.map((s) => s.ms),
    [1000],
    'the re-offer waits 1 s',
  );
  sleeps[0].wake();
  await settle();
  assert.equal(offer.count, 2, 'the re-offer is on its way');
  let ended = false;
  const hold = memberCalls.beforeEnd('tsk_c');
  assert.ok(hold, 'the ending is held');
  void hold.then(() => {
    ended = true;
  });
  await settle();
  assert.deepEqual(
    sleeps.map((s) => s.ms),
    [ENDING_WAIT_MS],
    'the ending waits up to 6 s on the clock',
  );
  assert.equal(ended, false);
  return { memberCalls, records, sleeps, offer, canceled, hold, isEnded: () => ended };
}

test('an offer on its way when the calling task ends: the ending waits 6 s on the clock, then the offer is given up', async () => {
  const { records, sleeps, offer, hold, isEnded, memberCalls } = await endingDuringReoffer();
  assert.equal(records.filter((r) => r.type === 'member_call').length, 0, 'nothing recorded before the wait is over');
  sleeps[0].wake();
  await hold;
  assert.ok(isEnded());
  assert.equal(offer.giveUp?.aborted, true, 'the offer is given up once the 6 s have passed');
  const call = records.filter((r) => r.type === 'member_call');
  assert.deepEqual(
    call.map((r) => [r.fields.status, r.fields.output, r.fields.offers, r.fields.delivered]),
    [['abandoned', 'the calling task ended while an offer to worker was in flight; worker may hold the task', 2, false]],
  );
  await settle();
  assert.equal(records.filter((r) => r.type === 'member_call').length, 1, 'the given-up offer records nothing more');
  assert.equal(memberCalls.beforeEnd('tsk_c'), hold, 'a second ending waits for the same');
  await assert.rejects(memberCalls.call('worker', 'again', ctx(null)), /this task is ending; nothing was sent/);
  assert.equal(offer.count, 2, 'no offer after the task ended');
  memberCalls.settle('tsk_c');
});

test('an offer on its way that the member takes after the calling task ended: CancelTask sent, then the ending goes on', async () => {
  const { records, sleeps, offer, canceled, hold } = await endingDuringReoffer();
  offer.answer?.({
    kind: 'taken',
    task: { id: 'tsk_w', contextId: 'ctx_w', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-12-01T00:00:00.000Z' } },
  });
  await hold;
  assert.deepEqual(canceled, ['tsk_w']);
  assert.deepEqual(sleeps, [], 'the 6 s wait stopped with the answer');
  const call = records.filter((r) => r.type === 'member_call');
  assert.deepEqual(
    call.map((r) => [r.fields.status, r.fields.output, r.fields.member_task_id]),
    [['abandoned', 'the calling task ended just after worker took the task; a cancel was sent to worker', 'tsk_w']],
  );
  assert.equal(records.filter((r) => r.type === 'member_call_start').length, 0);
});

test('an offer on its way that the member turns away busy: its member_call_busy, then abandoned, never handed', async () => {
  const { records, offer, hold } = await endingDuringReoffer();
  offer.answer?.({ kind: 'busy' });
  await hold;
  assert.deepEqual(
    records.map((r) => [r.type, r.fields.offer ?? r.fields.output]),
    [
      ['member_call_busy', 1],
      ['member_call_busy', 2],
      ['member_call', 'the calling task ended before worker took the task; worker was busy and was never handed it'],
    ],
  );
});

test('a call between offers when the calling task ends: recorded abandoned at once, no wait, no further offer', async () => {
  const records: { type: string; fields: Record<string, unknown> }[] = [];
  const trace = { write: (type: string, fields: Record<string, unknown>) => records.push({ type, fields }) } as unknown as TraceWriter;
  const seat = new FormationSeat('f', 'planner', ['worker'], [], ['planner', 'worker']);
  seat.seat(new Map([['worker', { url: 'http://127.0.0.1:40001', token: 'mur_x' }]]), []);
  const { clock, sleeps } = manualClock();
  let offers = 0;
  const door: MemberDoorLike = {
    offer: async () => {
      offers += 1;
      return { kind: 'busy' };
    },
    read: async () => ({ kind: 'no-answer', why: 'gone' }),
    cancel: async () => undefined,
  };
  const memberCalls = new MemberCalls({ session: session(600), seat, trace, clock, openDoor: () => door });
  await memberCalls.call('worker', 'do it', ctx(null));
  const hold = memberCalls.beforeEnd('tsk_c');
  assert.ok(hold);
  await hold;
  assert.deepEqual(sleeps, []);
  assert.equal(offers, 1);
  assert.deepEqual(
    records.filter((r) => r.type === 'member_call').map((r) => r.fields.output),
    ['the calling task ended before worker took the task; worker was busy and was never handed it'],
  );
});
