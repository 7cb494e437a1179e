import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TraceWriter } from '../records/trace-writer.js';
import { continuationText, type EndedCall } from './continuation.js';
import { Continuations } from './continuations.js';
import { type DelegationOutcome, type Delegations, outcomeBlock } from './delegations.js';
import type { MemberCalls } from './member-calls.js';

const answer: EndedCall = { callId: 'mcl_1', member: 'worker', status: 'completed', output: 'W', below: [] };
const outcome: DelegationOutcome = { delegationId: 'dlg_1', capsule: 'helper', status: 'completed', output: 'H' };

test('one message: member answers first, then delegation outcomes, then the runtime lines', () => {
  const text = continuationText({ answers: [answer], latest: [answer], sentBy: null, outcomes: [outcomeBlock(outcome)] });
  const at = (s: string) => text.indexOf(s);
  assert.ok(at('[call-member] call mcl_1 to worker ended completed:') === 0, text);
  assert.ok(at('[delegate-task] delegation dlg_1 to helper ended completed:') > at('source=member:worker'), text);
  assert.ok(text.endsWith('call a member again only to give it new work.'), text);
});

test('a delegation that ended otherwise says so, with no outcome', () => {
  assert.match(
    outcomeBlock({ ...outcome, status: 'timed_out', output: 'late' }),
    /^\[delegate-task\] delegation dlg_1 to helper ended timed_out, with no outcome from helper:\n<untrusted-content source=delegation:helper>\nlate\n/,
  );
});

test('the continuation waits for both kinds together and records one task_continued', async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const statuses: string[] = [];
  const records: Record<string, unknown>[] = [];
  const calls = {
    awaitRound: async () => {
      await gate;
      return { answers: [answer], latest: [answer], sentBy: null };
    },
  } as unknown as MemberCalls;
  const delegations = { pending: () => 1, awaitRound: async () => [outcome] } as unknown as Delegations;
  const trace = { write: (type: string, fields: Record<string, unknown>) => records.push({ type, ...fields }) } as unknown as TraceWriter;
  const pending = new Continuations(calls, delegations, trace).continuation('tsk_1', new AbortController().signal, (s) => statuses.push(s));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(records, [], 'nothing continues while a member call is out');
  release();
  const text = await pending;
  assert.ok(text!.indexOf('source=member:worker') < text!.indexOf('source=delegation:helper'));
  assert.deepEqual(statuses, ['continuing with 1 member answer(s) and 1 delegation outcome(s)']);
  assert.deepEqual(records, [{ type: 'task_continued', task_id: 'tsk_1', answers: 1, delegations: 1 }]);
});
