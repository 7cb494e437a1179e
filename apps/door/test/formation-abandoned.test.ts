/**
 * The calling task ends while a busy member's call is still being offered (seed 004, "A busy member"), on real doors:
 * between offers; and while an offer is on its way — the member turns it away busy, takes it (and is sent CancelTask),
 * or does not answer. An offer is held "on its way" by stopping the member's process (SIGSTOP) before the re-offer and
 * letting it go on (SIGCONT) after the calling task began ending. The calling task's ending — CANCELED by CancelTask,
 * or FAILED by its own model — is written and reported only once that offer was answered, or 6 s after it began.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const PLANNER = `
rules:
  - match: ^failing
    turns:
      - tools:
          - tool: call-member
            input: { member: slow, task: "{{task.text}}" }
        ask: go on?
      - fail: gave up on slow
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: slow, task: "{{task.text}}" }
      answer: waiting
    - answer: "{{continuation}}"
`;

const SLOW = `
rules:
  - match: ^occupy
    turns:
      - sleep_ms: 120000
        answer: late
default:
  turns:
    - sleep_ms: 30000
      answer: "slow: {{task.text}}"
`;

type TraceRecord = Record<string, unknown> & { type: string; ts: string };
const trace = (dir: string): TraceRecord[] =>
  readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TraceRecord);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the calling task ends while a busy member is being offered the task', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let planner: MurmurClient;
  let slow: MurmurClient;
  let slowPid: number;
  let occupying: string;
  const records = (taskId: string, type: string) => trace(formation.member('planner').recordsDir).filter((r) => r.type === type && r.task_id === taskId);
  /** Where in the planner's trace the task's member_call and task_end records are: the call is recorded first. */
  const order = (taskId: string) => {
    const all = trace(formation.member('planner').recordsDir).filter((r) => r.task_id === taskId);
    return { call: all.findIndex((r) => r.type === 'member_call'), end: all.findIndex((r) => r.type === 'task_end') };
  };
  const slowRefusals = () => trace(formation.member('slow').recordsDir).filter((r) => r.type === 'task_rejected').length;

  before(async () => {
    formation = await runFormation(
      makeFormation(
        'name: offers\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  slow: { capsule: ./slow }\nrules:\n  - from: planner\n    to: [slow]\n',
        {
          planner: { manifest: memberManifest('planner', { acceptance: 'queue' }), script: PLANNER },
          slow: { manifest: memberManifest('slow', { callee: true, acceptance: 'single' }), script: SLOW },
        },
      ),
      home,
    );
    planner = new MurmurClient(formation.member('planner').url);
    slow = new MurmurClient(formation.member('slow').url);
    slowPid = formation.member('slow').pid;
    // slow holds a long task of the operator's: every offer the planner makes is turned away busy.
    occupying = (await slow.sendText('occupy', { returnImmediately: true })).id;
  });
  after(() => {
    try {
      process.kill(slowPid, 'SIGCONT');
    } catch {
      // already gone
    }
    formation?.mur.kill('SIGKILL');
  });

  /** A call from a new planner task, turned away busy once: its task id. */
  async function busyCall(text: string): Promise<string> {
    const task = await planner.sendText(text, { returnImmediately: true });
    await until(() => records(task.id, 'member_call_busy')[0], 'the first offer turned away busy', 20_000);
    return task.id;
  }

  /**
   * With slow stopped: waits until the next re-offer is surely on its way — the latest refusal's wait (1 s,
   * doubling) plus its 250 ms of jitter, plus a margin for a loaded machine; the offer's own 5 s timeout is far
   * later. Counts the refusals so far: on a loaded machine slow may have been stopped after a re-offer.
   */
  async function whileOffered(taskId: string): Promise<number> {
    const busy = records(taskId, 'member_call_busy');
    const wait = Math.min(1_000 * 2 ** (busy.length - 1), 8_000);
    await sleep(Math.max(0, Date.parse(busy.at(-1)!.ts) + wait + 250 + 750 - Date.now()));
    return busy.length;
  }

  /** Cancels the calling task while the re-offer is on its way; the CancelTask's answer is held, so it is not awaited here. */
  async function cancelWhileOffered(taskId: string): Promise<{ canceledAt: number; refusals: number; answer: Promise<{ state: string; at: number }> }> {
    const refusals = await whileOffered(taskId);
    const canceledAt = Date.now();
    const answer = planner.cancelTask(taskId).then((task) => ({ state: task.status.state, at: Date.now() }));
    return { canceledAt, refusals, answer };
  }

  /** The answer has not come yet: the task is still WORKING, its call not yet recorded. */
  async function stillHeld(taskId: string, answer: Promise<unknown>): Promise<void> {
    const pending = Symbol('pending');
    assert.equal(await Promise.race([answer, sleep(0).then(() => pending)]), pending, 'the ending is not answered while the offer is on its way');
    assert.equal((await planner.getTask(taskId)).status.state, 'TASK_STATE_WORKING');
    assert.equal(records(taskId, 'member_call').length, 0, 'the call waits for the offer’s answer');
    assert.equal(records(taskId, 'task_end').length, 0);
  }

  test('between offers: abandoned, never held, recorded before the task ends, and no offer is sent after', async () => {
    const taskId = await busyCall('between');
    const started = Date.now();
    const canceled = await planner.cancelTask(taskId);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assert.ok(Date.now() - started < 3_000, `CancelTask answered in ${Date.now() - started} ms: nothing was on its way`);
    const call = records(taskId, 'member_call')[0];
    assert.ok(call, 'the call was recorded before CancelTask answered');
    const at = order(taskId);
    assert.ok(at.call >= 0 && at.call < at.end, 'member_call before task_end');
    // Each offer slow turned away wrote its refusal (one, or more on a loaded machine before the cancel).
    const refusals = records(taskId, 'member_call_busy').length;
    assert.deepEqual(
      { status: call.status, member_task_id: call.member_task_id, offers: call.offers, delivered: call.delivered, output: call.output },
      {
        status: 'abandoned',
        member_task_id: null,
        offers: refusals,
        delivered: false,
        output: 'the calling task ended before slow took the task; slow was busy and was never handed it',
      },
    );
    await sleep(2_500);
    assert.equal(records(taskId, 'member_call_busy').length, refusals, 'no offer after the task ended');
  });

  test('an offer on its way that the member turns away busy: CANCELED only after that offer’s member_call_busy', async () => {
    const taskId = await busyCall('turned away');
    process.kill(slowPid, 'SIGSTOP');
    const { canceledAt, refusals, answer } = await cancelWhileOffered(taskId);
    await sleep(1_000);
    await stillHeld(taskId, answer);
    const resumedAt = Date.now();
    process.kill(slowPid, 'SIGCONT');
    const ended = await answer;
    assert.equal(ended.state, 'TASK_STATE_CANCELED');
    assert.ok(ended.at >= resumedAt, 'CancelTask answered after the offer’s answer');
    const call = records(taskId, 'member_call')[0];
    assert.ok(call, 'the call was recorded before CancelTask answered');
    const at = order(taskId);
    assert.ok(at.call < at.end, 'member_call before task_end');
    const busy = records(taskId, 'member_call_busy');
    assert.deepEqual(
      busy.map((r) => r.offer),
      Array.from({ length: refusals + 1 }, (_, i) => i + 1),
    );
    assert.ok(Date.parse(busy.at(-1)!.ts) >= canceledAt, 'the in-flight offer’s refusal was recorded after the ending began');
    assert.ok(Date.parse(busy.at(-1)!.ts) <= Date.parse(records(taskId, 'task_end')[0].ts), '… and before the task ended');
    assert.deepEqual(
      { status: call.status, member_task_id: call.member_task_id, offers: call.offers, output: call.output },
      {
        status: 'abandoned',
        member_task_id: null,
        offers: refusals + 1,
        output: 'the calling task ended before slow took the task; slow was busy and was never handed it',
      },
    );
    const refused = slowRefusals();
    await sleep(2_500);
    assert.equal(slowRefusals(), refused, 'no offer after the task ended');
  });

  test('an offer on its way that gets no answer: CANCELED 6 s after the cancel, the call abandoned first, slow may hold the task', async () => {
    const taskId = await busyCall('silent');
    process.kill(slowPid, 'SIGSTOP');
    try {
      const { canceledAt, refusals, answer } = await cancelWhileOffered(taskId);
      await sleep(3_000);
      await stillHeld(taskId, answer);
      const ended = await answer;
      assert.equal(ended.state, 'TASK_STATE_CANCELED');
      // The ending waits 6 s from the cancel's arrival (a few ms after it was sent), then the task ends at once.
      const held = ended.at - canceledAt;
      assert.ok(held >= 5_950 && held <= 9_500, `CancelTask answered ${held} ms after it was sent`);
      const call = records(taskId, 'member_call')[0];
      assert.ok(call, 'the call was recorded before CancelTask answered');
      const at = order(taskId);
      assert.ok(at.call < at.end, 'member_call before task_end');
      const recorded = Date.parse(call.ts) - canceledAt;
      assert.ok(recorded >= 5_950, `recorded ${recorded} ms after the cancel was sent`);
      assert.deepEqual(
        { status: call.status, member_task_id: call.member_task_id, offers: call.offers, output: call.output },
        {
          status: 'abandoned',
          member_task_id: null,
          offers: refusals + 1,
          output: 'the calling task ended while an offer to slow was in flight; slow may hold the task',
        },
      );
      assert.equal(records(taskId, 'member_call_busy').length, refusals);
    } finally {
      process.kill(slowPid, 'SIGCONT');
    }
  });

  test('the model fails while an offer is on its way: FAILED is written only after the member turned that offer away', async () => {
    const task = await planner.sendText('failing', { returnImmediately: true });
    await until(() => records(task.id, 'member_call_busy')[0], 'the first offer turned away busy', 20_000);
    await until(async () => ((await planner.getTask(task.id)).status.state === 'TASK_STATE_INPUT_REQUIRED' ? true : undefined), 'the planner asking');
    process.kill(slowPid, 'SIGSTOP');
    let resumedAt = 0;
    try {
      const refusals = await whileOffered(task.id);
      // The reply runs the failing turn; its answer is the task as it settles, held until then.
      const answer = planner.reply(task.id, 'stop').then((t) => ({ state: t.status.state, at: Date.now() }));
      await sleep(1_000);
      await stillHeld(task.id, answer);
      resumedAt = Date.now();
      process.kill(slowPid, 'SIGCONT');
      const ended = await answer;
      assert.equal(ended.state, 'TASK_STATE_FAILED');
      assert.ok(ended.at >= resumedAt, 'FAILED reported after the offer’s answer');
      assert.equal((await planner.getTask(task.id)).status.message?.parts[0]?.text, 'gave up on slow');
      const at = order(task.id);
      assert.ok(at.call >= 0 && at.call < at.end, 'member_call before task_end');
      assert.equal(records(task.id, 'member_call_busy').length, refusals + 1, 'the in-flight offer’s refusal is written');
      assert.equal(records(task.id, 'member_call')[0].output, 'the calling task ended before slow took the task; slow was busy and was never handed it');
    } finally {
      if (resumedAt === 0) process.kill(slowPid, 'SIGCONT');
    }
  });

  test('an offer on its way that the member takes: abandoned with its task id, and that task is sent CancelTask', async () => {
    const taskId = await busyCall('taken late');
    // slow gets room, then answers nothing until the calling task has ended.
    assert.equal((await slow.cancelTask(occupying)).status.state, 'TASK_STATE_CANCELED');
    process.kill(slowPid, 'SIGSTOP');
    assert.equal(records(taskId, 'member_call_start').length, 0, 'slow was stopped before a re-offer reached it');
    const { answer } = await cancelWhileOffered(taskId);
    await sleep(1_000);
    await stillHeld(taskId, answer);
    process.kill(slowPid, 'SIGCONT');
    const ended = await answer;
    assert.equal(ended.state, 'TASK_STATE_CANCELED');
    const call = records(taskId, 'member_call')[0];
    assert.ok(call, 'the call was recorded before CancelTask answered');
    const at = order(taskId);
    assert.ok(at.call < at.end, 'member_call before task_end');
    assert.equal(call.status, 'abandoned');
    assert.match(String(call.member_task_id), /^tsk_/);
    assert.equal(call.output, 'the calling task ended just after slow took the task; a cancel was sent to slow');
    assert.equal(records(taskId, 'member_call_start').length, 0, 'a task taken after the calling task ended never starts the call');
    // The member's task, owned by member:planner, was canceled by the runtime's CancelTask before the planner's task ended.
    assert.equal((await slow.getTask(call.member_task_id as string)).status.state, 'TASK_STATE_CANCELED');
    const slowTrace = trace(formation.member('slow').recordsDir);
    assert.equal(slowTrace.find((r) => r.type === 'task_start' && r.task_id === call.member_task_id)?.origin, 'member:planner');
    const slowEnd = slowTrace.find((r) => r.type === 'task_end' && r.task_id === call.member_task_id)!;
    assert.equal(slowEnd.state, 'TASK_STATE_CANCELED');
    assert.ok(Date.parse(slowEnd.ts) <= Date.parse(records(taskId, 'task_end')[0].ts), 'slow’s task ended before the planner’s');
  });
});
