/**
 * Member calls under faults, on real doors (issue 29; seed 004, call-member): a member frozen (SIGSTOP) while it holds
 * a call, with collections forced in the calling door every 50 ms while it waits, and a member that died
 * (SIGKILL) before it is called.
 *
 * - The frozen member's door keeps its socket open and never answers. "The wait is bounded by each call's own
 *   deadline": with a 3 s deadline the call ends timed_out at 3 s (its reads are given up when the deadline passes);
 *   with a 9 s deadline, "two reads in a row that get no answer" end it unreachable first, each read ending by its
 *   own 2 s timeout. Node 20's fetch lost an `AbortSignal.timeout` combined through `AbortSignal.any` once a
 *   collection ran, and the call then hung until the member resumed; the callers' doors here collect every 50 ms (a
 *   `--require` preload with `--expose-gc`, through NODE_OPTIONS).
 * - "The model never sees the door's address or the token": the dead member's call fails naming the member only, and
 *   no tool result or answer of these formations carries `http://` or `mur_` (every suite's tool results are read
 *   the same way when its doors stop: support/trace-schema-check.ts, assertNoAddressToModel).
 *
 * MURMUR_FROZEN_REPS sets how many frozen calls the 3 s case makes (3 here; `npm run soak` makes 100).
 * MURMUR_FORMATION_FAULT_SEED (29 unless given) draws, for each of them, how long after the worker takes the call it
 * is frozen (0–400 ms: before its first read is answered, or while its task sleeps); the figures line names the seed.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';
import { completeLines } from './support/tasks.js';
import { prng } from './support/auth.js';

const REPS = Number(process.env.MURMUR_FROZEN_REPS ?? 3);
const SEED = Number(process.env.MURMUR_FORMATION_FAULT_SEED ?? 29);
/** The longest a drawn freeze waits after the worker took the call. */
const MAX_HOLD_MS = 400;
const SHORT_DEADLINE_S = 3;
const LONG_DEADLINE_S = 9;
/** How far past the moment it is due a call may be recorded: a loaded machine's scheduling, not a read's 2 s. */
const MARGIN_MS = 1_000;

const CALLER = `
rules:
  - match: ^gone
    turns:
      - tools:
          - tool: call-member
            input: { member: gone, task: "{{task.text}}" }
        answer: "{{tool.content}}"
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: worker, task: "{{task.text}}" }
      answer: waiting
    - answer: "{{continuation}}"
`;

const WORKER = `
default:
  turns:
    - sleep_ms: 60000
      answer: late
`;

type TraceRecord = Record<string, unknown> & { type: string; ts: string };
const trace = (dir: string): TraceRecord[] => completeLines(readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')).map((l) => JSON.parse(l) as TraceRecord);
const responseOf = (task: { artifacts?: { artifactId: string; parts: { text?: string }[] }[] }) =>
  task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '';

/** Every text of a formation that reached a model: each tool result, each task's answer (continuations included). */
const seen: { where: string; text: string }[] = [];

describe('member calls under faults', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let worker: MurmurClient;
  let workerPid: number;
  const frozen = new Set<number>();
  const records = (member: string, taskId: string, type: string) =>
    trace(formation.member(member).recordsDir).filter((r) => r.type === type && r.task_id === taskId);
  const freeze = () => {
    process.kill(workerPid, 'SIGSTOP');
    frozen.add(workerPid);
  };
  const thaw = () => {
    if (frozen.delete(workerPid)) process.kill(workerPid, 'SIGCONT');
  };

  before(async () => {
    const preload = path.join(tempDir('gc'), 'collect.cjs');
    // Collections in the callers' doors only (the processes whose waits are bounded), so the formation stays light.
    writeFileSync(
      preload,
      [
        "const at = process.argv.indexOf('--member');",
        "if (typeof globalThis.gc === 'function' && at > 0 && ['lead', 'patient'].includes(process.argv[at + 1])) setInterval(() => globalThis.gc(), 50).unref();",
        '',
      ].join('\n'),
    );
    formation = await runFormation(
      makeFormation(
        [
          'name: faults',
          'entry: lead',
          'members:',
          '  lead: { capsule: ./lead }',
          '  patient: { capsule: ./patient }',
          '  worker: { capsule: ./worker }',
          '  gone: { capsule: ./gone }',
          'rules:',
          '  - from: lead',
          '    to: [worker, gone]',
          '  - from: patient',
          '    to: [worker]',
          '',
        ].join('\n'),
        {
          lead: { manifest: memberManifest('lead', { acceptance: 'queue', lifecycle: [`delegation_deadline_secs: ${SHORT_DEADLINE_S}`] }), script: CALLER },
          patient: {
            manifest: memberManifest('patient', { acceptance: 'queue', lifecycle: [`delegation_deadline_secs: ${LONG_DEADLINE_S}`] }),
            script: CALLER,
          },
          worker: { manifest: memberManifest('worker', { callee: true, acceptance: 'queue' }), script: WORKER },
          gone: { manifest: memberManifest('gone', { callee: true }), script: WORKER },
        },
      ),
      home,
      [],
      { NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', '--expose-gc', `--require ${preload}`].join(' ').trim() },
    );
    worker = new MurmurClient(formation.member('worker').url);
    workerPid = formation.member('worker').pid;
    // The worker's door answers its first request late on a loaded machine; the first offer should not be that one.
    await worker.listTasks({});
  });
  after(() => {
    thaw();
    formation?.mur.kill('SIGKILL');
    for (const m of formation?.members ?? []) {
      try {
        process.kill(m.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  /**
   * One call from `caller` to worker, frozen once worker holds it: how the call was recorded, how long after its
   * start (by the caller's own member_call_start), and the calling task's answer. Worker is resumed and freed after.
   */
  async function frozenCall(caller: 'lead' | 'patient', text: string, deadlineS: number, holdMs = 0) {
    const client = new MurmurClient(formation.member(caller).url);
    const task = await client.sendText(text, { returnImmediately: true });
    const start = await until(() => records(caller, task.id, 'member_call_start')[0], 'worker took the call', 20_000);
    if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
    freeze();
    try {
      const call = await until(() => records(caller, task.id, 'member_call')[0], 'the call recorded while worker is frozen', (deadlineS + 8) * 1000);
      const recordedAfterMs = Date.parse(call.ts) - Date.parse(start.ts);
      const answered = await until(async () => {
        const t = await client.getTask(task.id);
        return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
      }, 'the calling task answered with the continuation');
      seen.push({ where: `${caller} ${text}: answer`, text: responseOf(answered) });
      return { call, recordedAfterMs, answer: responseOf(answered) };
    } finally {
      thaw();
      for (const t of (await worker.listTasks({ status: 'TASK_STATE_WORKING' })).tasks) await worker.cancelTask(t.id);
      for (const t of (await worker.listTasks({ status: 'TASK_STATE_SUBMITTED' })).tasks) await worker.cancelTask(t.id);
    }
  }

  test(`a frozen member's call ends timed_out at its ${SHORT_DEADLINE_S} s deadline, ${REPS} times, with collections forced`, async () => {
    const late: string[] = [];
    const random = prng(SEED);
    const holds: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const holdMs = Math.floor(random() * (MAX_HOLD_MS + 1));
      holds.push(holdMs);
      const { call, recordedAfterMs, answer } = await frozenCall('lead', `frozen ${i}`, SHORT_DEADLINE_S, holdMs);
      assert.equal(call.status, 'timed_out', `repetition ${i}: ${JSON.stringify(call)}`);
      assert.ok((call.elapsed_ms as number) >= SHORT_DEADLINE_S * 1000, `repetition ${i}: elapsed ${call.elapsed_ms} ms`);
      if ((call.elapsed_ms as number) > SHORT_DEADLINE_S * 1000 + MARGIN_MS || recordedAfterMs > SHORT_DEADLINE_S * 1000 + MARGIN_MS) {
        late.push(`repetition ${i}: elapsed ${call.elapsed_ms} ms, recorded ${recordedAfterMs} ms after its start`);
      }
      assert.match(
        answer,
        new RegExp(
          `ended timed_out, with no answer from worker:\\n<untrusted-content source=member:worker>\\nworker did not answer within ${SHORT_DEADLINE_S}s; it was not cancelled`,
        ),
      );
    }
    console.log(
      `figures: seed ${SEED}, ${REPS} frozen calls (frozen ${Math.min(...holds)}–${Math.max(...holds)} ms after the worker took each), ${late.length} past the ${SHORT_DEADLINE_S} s deadline by more than ${MARGIN_MS} ms`,
    );
    assert.deepEqual(late, [], `calls past their deadline by more than ${MARGIN_MS} ms`);
  });

  test(`with a ${LONG_DEADLINE_S} s deadline, two reads in a row without an answer end it unreachable, each read by its own 2 s`, async () => {
    const { call, recordedAfterMs, answer } = await frozenCall('patient', 'frozen long', LONG_DEADLINE_S);
    assert.equal(call.status, 'unreachable', JSON.stringify(call));
    // Two reads of 2 s each, 500 ms apart, the first within 500 ms of the start: about 5 s (7.4 s seen on a loaded
    // machine), before the 9 s deadline would have ended it timed_out.
    assert.ok(recordedAfterMs < LONG_DEADLINE_S * 1000, `recorded ${recordedAfterMs} ms after its start`);
    assert.match(answer, /ended unreachable, with no answer from worker:\n<untrusted-content source=member:worker>\nworker's door stopped answering\n/);
  });

  test("a dead member's call fails naming the member only: the connection was refused, no address", async () => {
    const gone = formation.member('gone');
    process.kill(gone.pid, 'SIGKILL');
    await until(() => {
      try {
        process.kill(gone.pid, 0);
        return undefined;
      } catch {
        return true;
      }
    }, 'gone exited');
    const lead = new MurmurClient(formation.member('lead').url);
    const task = await lead.sendText('gone away', { returnImmediately: true });
    const ended = await until(async () => {
      const t = await lead.getTask(task.id);
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    }, 'the calling task answered');
    const result = records('lead', task.id, 'tool_call').find((r) => r.tool === 'call-member');
    assert.ok(result, 'the call-member result was recorded');
    assert.equal(result.status, 'error');
    assert.match(String(result.output), /"output":"gone's door could not be reached: the connection was refused"/);
    assert.match(responseOf(ended), /gone's door could not be reached: the connection was refused/);
    seen.push({ where: 'lead gone away: answer', text: responseOf(ended) });
    assert.equal(records('lead', task.id, 'member_call')[0]?.status, 'failed');
  });

  test('no tool result or answer of these calls carries a door address or a token', () => {
    for (const m of formation.members) {
      if (m.member === 'gone') continue;
      for (const r of trace(m.recordsDir).filter((r) => r.type === 'tool_call'))
        seen.push({ where: `${m.member} ${String(r.tool)} result`, text: String(r.output) });
    }
    assert.ok(seen.length >= REPS + 3, `${seen.length} texts read`);
    const leaks = seen.filter((s) => s.text.includes('http://') || s.text.includes('mur_'));
    assert.deepEqual(leaks, []);
  });
});
