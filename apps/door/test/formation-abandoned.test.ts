/**
 * The calling task ends while a busy member's call is still being offered (seed 004, "A busy member"), on real doors:
 * between offers; and while an offer is on its way — the member turns it away busy, takes it (and is sent CancelTask),
 * or does not answer. An offer is held "on its way" by stopping the member's process (SIGSTOP) before the re-offer and
 * letting it go on (SIGCONT) after the calling task was cancelled.
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

  before(async () => {
    formation = await runFormation(
      makeFormation('name: offers\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  slow: { capsule: ./slow }\nrules:\n  - from: planner\n    to: [slow]\n', {
        planner: { manifest: memberManifest('planner', { acceptance: 'queue' }), script: PLANNER },
        slow: { manifest: memberManifest('slow', { callee: true, acceptance: 'single' }), script: SLOW },
      }),
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
   * With slow stopped: cancels the calling task once the next re-offer is surely on its way — the latest refusal's
   * wait (1 s, doubling) plus its 250 ms of jitter, plus a margin for a loaded machine; the offer's own 5 s timeout
   * is far later. Counts the refusals so far: on a loaded machine slow may have been stopped after a re-offer.
   */
  async function cancelWhileOffered(taskId: string): Promise<{ canceledAt: number; refusals: number }> {
    const busy = records(taskId, 'member_call_busy');
    const wait = Math.min(1_000 * 2 ** (busy.length - 1), 8_000);
    await sleep(Math.max(0, Date.parse(busy.at(-1)!.ts) + wait + 250 + 750 - Date.now()));
    const canceled = await planner.cancelTask(taskId);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    return { canceledAt: Date.now(), refusals: busy.length };
  }

  test('between offers: abandoned, never held, and no offer is sent after the task ended', async () => {
    const taskId = await busyCall('between');
    const canceled = await planner.cancelTask(taskId);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const call = await until(() => records(taskId, 'member_call')[0], 'the call accounted for');
    // Each offer slow turned away wrote its refusal (one, or more on a loaded machine before the cancel).
    const refusals = records(taskId, 'member_call_busy').length;
    assert.deepEqual(
      { status: call.status, member_task_id: call.member_task_id, offers: call.offers, delivered: call.delivered, output: call.output },
      { status: 'abandoned', member_task_id: null, offers: refusals, delivered: false, output: 'the calling task ended before slow took the task; slow was busy and was never handed it' },
    );
    await sleep(2_500);
    assert.equal(records(taskId, 'member_call_busy').length, refusals, 'no offer after the task ended');
  });

  test('an offer on its way that the member turns away busy: that offer’s member_call_busy, then abandoned, never held', async () => {
    const taskId = await busyCall('turned away');
    process.kill(slowPid, 'SIGSTOP');
    const { canceledAt, refusals } = await cancelWhileOffered(taskId);
    await sleep(300);
    assert.equal(records(taskId, 'member_call').length, 0, 'the call waits for the offer’s answer');
    process.kill(slowPid, 'SIGCONT');
    const call = await until(() => records(taskId, 'member_call')[0], 'the call accounted for');
    const busy = records(taskId, 'member_call_busy');
    assert.deepEqual(
      busy.map((r) => r.offer),
      Array.from({ length: refusals + 1 }, (_, i) => i + 1),
    );
    assert.ok(Date.parse(busy.at(-1)!.ts) >= canceledAt, 'the in-flight offer’s refusal was recorded after the task ended');
    assert.deepEqual(
      { status: call.status, member_task_id: call.member_task_id, offers: call.offers, output: call.output },
      { status: 'abandoned', member_task_id: null, offers: refusals + 1, output: 'the calling task ended before slow took the task; slow was busy and was never handed it' },
    );
  });

  test('an offer on its way that gets no answer: abandoned within 6 s of the task’s end, slow may hold the task', async () => {
    const taskId = await busyCall('silent');
    process.kill(slowPid, 'SIGSTOP');
    try {
      const { canceledAt, refusals } = await cancelWhileOffered(taskId);
      const call = await until(() => records(taskId, 'member_call')[0], 'the call accounted for', 15_000);
      const after = Date.parse(call.ts) - canceledAt;
      assert.ok(after >= 0 && after <= 6_000, `accounted for ${after} ms after the task ended`);
      assert.deepEqual(
        { status: call.status, member_task_id: call.member_task_id, offers: call.offers, output: call.output },
        { status: 'abandoned', member_task_id: null, offers: refusals + 1, output: 'the calling task ended while an offer to slow was in flight; slow may hold the task' },
      );
      assert.equal(records(taskId, 'member_call_busy').length, refusals);
    } finally {
      process.kill(slowPid, 'SIGCONT');
    }
  });

  test('an offer on its way that the member takes: abandoned with its task id, and that task is sent CancelTask', async () => {
    const taskId = await busyCall('taken late');
    // slow gets room, then answers nothing until the calling task has ended.
    assert.equal((await slow.cancelTask(occupying)).status.state, 'TASK_STATE_CANCELED');
    process.kill(slowPid, 'SIGSTOP');
    assert.equal(records(taskId, 'member_call_start').length, 0, 'slow was stopped before a re-offer reached it');
    await cancelWhileOffered(taskId);
    process.kill(slowPid, 'SIGCONT');
    const call = await until(() => records(taskId, 'member_call')[0], 'the call accounted for');
    assert.equal(call.status, 'abandoned');
    assert.match(String(call.member_task_id), /^tsk_/);
    assert.equal(call.output, 'the calling task ended just after slow took the task; a cancel was sent to slow');
    assert.equal(records(taskId, 'member_call_start').length, 0, 'a task taken after the calling task ended never starts the call');
    // The member's task, owned by member:planner, is canceled by the runtime's CancelTask.
    const slowStart = await until(() => trace(formation.member('slow').recordsDir).find((r) => r.type === 'task_start' && r.task_id === call.member_task_id), 'slow’s task start');
    assert.equal(slowStart.origin, 'member:planner');
    await until(async () => ((await slow.getTask(call.member_task_id as string)).status.state === 'TASK_STATE_CANCELED' ? true : undefined), 'slow’s task canceled');
  });
});
