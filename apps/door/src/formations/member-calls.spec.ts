/**
 * call-member's results as the tool returns them (seed 004, "What a call returns"), for answers a healthy door gives
 * only in a narrow window — a first offer refused for a reason other than busy (a closing session) — and the busy
 * note's deadline: the manifest's key, else MURMUR_DELEGATION_TIMEOUT_SECS. The door is a fake `MemberDoorLike`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionContext } from '../session/session-context.js';
import { FormationSeat } from '../session/formation-seat.js';
import type { TraceWriter } from '../session/trace-writer.js';
import { SYSTEM_CLOCK } from './clock.js';
import type { MemberDoorLike } from './member-call-run.js';
import { delegationDeadlineSecs, MemberCalls } from './member-calls.js';
import type { OfferAnswer } from './member-client.js';

const session = (deadline?: number) =>
  ({ manifest: { lifecycle: { delegation_deadline_secs: deadline }, capabilities: { network: { allow: ['localhost'] } } } }) as unknown as SessionContext;

function calls(offer: OfferAnswer, deadline?: number) {
  const records: { type: string; fields: Record<string, unknown> }[] = [];
  const trace = { write: (type: string, fields: Record<string, unknown>) => records.push({ type, fields }) } as unknown as TraceWriter;
  const seat = new FormationSeat('f', 'planner', ['worker'], [], ['planner', 'worker']);
  seat.seat(new Map([['worker', { url: 'http://127.0.0.1:40001', token: 'mur_x' }]]));
  const door: MemberDoorLike = { offer: async () => offer, read: async () => ({ kind: 'no-answer', why: 'gone' }), cancel: async () => undefined };
  const memberCalls = new MemberCalls({ session: session(deadline), seat, trace, clock: SYSTEM_CLOCK, openDoor: () => door });
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
  assert.equal(answer.note, `[call-member] Call ${data.call_id} to worker ended rejected, with no answer from worker. Do not present an answer of your own as worker's.`);
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
  const saved = process.env.MURMUR_DELEGATION_TIMEOUT_SECS;
  process.env.MURMUR_DELEGATION_TIMEOUT_SECS = '7';
  try {
    assert.equal(delegationDeadlineSecs(session()), 7);
    assert.equal(delegationDeadlineSecs(session(45)), 45);
    const unkeyed = calls({ kind: 'busy' }).memberCalls;
    const fromEnv = await unkeyed.call('worker', 'x', ctx(null));
    unkeyed.settle('tsk_c');
    assert.match(fromEnv.note!, /keeps offering it the task for up to 7s/);
  } finally {
    if (saved === undefined) delete process.env.MURMUR_DELEGATION_TIMEOUT_SECS;
    else process.env.MURMUR_DELEGATION_TIMEOUT_SECS = saved;
  }
  assert.equal(delegationDeadlineSecs(session(), {}), 600);
  assert.equal(delegationDeadlineSecs(session(), { MURMUR_DELEGATION_TIMEOUT_SECS: 'soon' }), 600);
});
