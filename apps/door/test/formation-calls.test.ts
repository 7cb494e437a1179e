/**
 * call-member on real doors (seed 004, "call-member", "A busy member", "How the answer arrives"): a three-member
 * formation under `mur run --roster`, the entry member's scripted calls, and the continuation it reads back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const CALL = (member: string, task: string) => `
      - tools:
          - tool: call-member
            input: { member: ${member}, task: "${task}" }
        answer: "waiting for ${member}"`;

const PLANNER = `
rules:
  - match: ^plain
    turns:${CALL('worker', 'hello')}
      - answer: "{{continuation}}"
  - match: ^twice
    turns:
      - tools:
          - tool: call-member
            input: { member: worker, task: "first" }
          - tool: call-member
            input: { member: worker, task: "second" }
        answer: waiting
      - answer: "{{tool.content}}\\n---\\n{{continuation}}"
  - match: ^stranger
    turns:
      - tools:
          - tool: call-member
            input: { member: nobody, task: "x" }
        answer: "{{tool.content}}"
  - match: ^big
    turns:${CALL('worker', 'big')}
      - answer: "{{continuation}}"
  - match: ^busy
    turns:${CALL('slow', 'quick')}
      - answer: "{{continuation}}"
  - match: ^long
    turns:${CALL('slow', 'long')}
      - answer: "{{continuation}}"
  - match: ^last
    turns:
      - text: ["."]${CALL('worker', 'late')}
default:
  turns:
    - answer: "planner: {{task.text}}"
`;

const WORKER = `
rules:
  - match: ^big
    turns:
      - text: ["${'x'.repeat(63)}\\n"]
        repeat: 1100
default:
  turns:
    - answer: "worker: {{task.text}}"
`;

const SLOW = `
rules:
  - match: ^quick
    turns:
      - answer: "slow: quick"
  - match: ^short
    turns:
      - sleep_ms: 2500
        answer: "slow: short"
  - match: ^long
    turns:
      - sleep_ms: 60000
        answer: "slow: long"
default:
  turns:
    - answer: "slow: {{task.text}}"
`;

const ROSTER = `name: calls
entry: planner
members:
  planner: { capsule: ./planner }
  worker: { capsule: ./worker }
  slow: { capsule: ./slow }
rules:
  - from: planner
    to: [worker, slow]
`;

interface TraceRecord {
  ts: string;
  type: string;
  [key: string]: unknown;
}

function traceOf(recordsDir: string): TraceRecord[] {
  return readFileSync(path.join(recordsDir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TraceRecord);
}

describe('call-member between real doors', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let planner: MurmurClient;
  let slow: MurmurClient;
  const answer = async (text: string) => {
    const task = await planner.sendText(text);
    return { task, text: task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '' };
  };
  const records = (taskId: string, type: string) => traceOf(formation.member('planner').recordsDir).filter((r) => r.type === type && r.task_id === taskId);

  before(async () => {
    const roster = makeFormation(ROSTER, {
      planner: { manifest: memberManifest('planner', { acceptance: 'queue', lifecycle: ['delegation_deadline_secs: 6'], maxTurns: 3 }), script: PLANNER },
      worker: { manifest: memberManifest('worker', { callee: true, acceptance: 'queue' }), script: WORKER },
      slow: { manifest: memberManifest('slow', { callee: true, acceptance: 'single' }), script: SLOW },
    });
    formation = await runFormation(roster, home);
    planner = new MurmurClient(formation.member('planner').url);
    slow = new MurmurClient(formation.member('slow').url);
  });
  after(() => formation?.mur.kill('SIGKILL'));

  test('started, then the continuation: one user message with the fenced answer and the last line', async () => {
    const { task, text } = await answer('plain');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const [start] = records(task.id, 'member_call_start');
    const callId = start.call_id as string;
    assert.match(callId, /^mcl_[0-9a-f]{32}$/);
    assert.equal(
      text,
      `[call-member] call ${callId} to worker ended completed:\n<untrusted-content source=member:worker>\nworker: hello\n</untrusted-content>\n\n[call-member] Every call this task made has ended, and the answers are above. Answer the task with them now; call a member again only to give it new work.`,
    );
    const [call] = records(task.id, 'member_call');
    assert.equal(call.status, 'completed');
    assert.equal(call.delivered, true);
    assert.equal(records(task.id, 'task_continued').length, 1);
    // The worker's task came from the planner: origin peer, the calling task's trust, owned by member:planner.
    const workerStart = traceOf(formation.member('worker').recordsDir).find((r) => r.type === 'task_start' && r.task_id === start.member_task_id);
    assert.equal(workerStart?.origin, 'member:planner');
    assert.equal(workerStart?.trust, 'trusted');
  });

  test('a second call to the same member before its answer is refused, naming the earlier call; nothing is sent', async () => {
    const { text } = await answer('twice');
    const [first] = records((await planner.listTasks({ pageSize: 1 })).tasks[0].id, 'member_call_start');
    assert.match(
      text,
      new RegExp(
        `worker has not yet answered call ${first.call_id} from this task, so nothing was sent\\. Its answer reaches you only after you end your turn`,
      ),
    );
    assert.match(text, /---\n\[call-member\] call mcl_\w+ to worker ended completed:\n<untrusted-content source=member:worker>\nworker: first\n/);
  });

  test('a member the roster does not let this capsule call is refused with the members it may call', async () => {
    const { text } = await answer('stranger');
    assert.match(text, /member "nobody" is not one of worker, slow/);
  });

  test('a member answer over 64 KiB is cut, on a character boundary, with the mark', async () => {
    const { text } = await answer('big');
    const fenced = /<untrusted-content source=member:worker>\n([\s\S]*)\n<\/untrusted-content>/.exec(text)![1];
    assert.ok(fenced.endsWith('… [cut at 64 KiB]'));
    assert.equal(Buffer.byteLength(fenced.slice(0, -'… [cut at 64 KiB]'.length)), 64 * 1024);
  });

  test('a busy member is offered the task again 1 s, then 2 s later (plus up to 250 ms), and answers once it takes it', async () => {
    const occupied = await slow.sendText('short', { returnImmediately: true });
    const { task, text } = await answer('busy');
    assert.match(text, /\[call-member\] call mcl_\w+ to slow ended completed:\n<untrusted-content source=member:slow>\nslow: quick\n/);
    const busy = records(task.id, 'member_call_busy').map((r) => Date.parse(r.ts));
    const [start] = records(task.id, 'member_call_start');
    assert.ok(busy.length >= 2, `busy offers: ${busy.length}`);
    const gap1 = busy[1] - busy[0];
    const gap2 = Date.parse(start.ts) - busy[1];
    // The lower bounds are the back-off; the upper ones only tell its steps apart (1 s before 2 s before a third
    // wait), so a loaded machine's late timer does not fail the test.
    assert.ok(gap1 >= 1000 && gap1 < 2000, `second offer ${gap1} ms after the first`);
    assert.ok(gap2 >= 2000 && gap2 < 4000, `third offer ${gap2} ms after the second`);
    assert.equal(start.offers, 3);
    assert.equal((await slow.getTask(occupied.id)).status.state, 'TASK_STATE_COMPLETED');
  });

  test('the deadline passes while the member works: timed_out, the no-answer line and the other last line', async () => {
    const { task, text } = await answer('long');
    const [call] = records(task.id, 'member_call');
    assert.equal(call.status, 'timed_out');
    assert.match(
      text,
      /ended timed_out, with no answer from slow:\n<untrusted-content source=member:slow>\nslow did not answer within 6s; it was not cancelled and may still be working\n<\/untrusted-content>/,
    );
    assert.match(
      text,
      new RegExp(`\\[call-member\\] No answer came from: slow \\(call ${call.call_id}, timed_out\\)\\. What you asked of them has not been done by them`),
    );
    assert.ok(
      text.endsWith(
        '[call-member] Every call this task made has ended. Answer the task with the answers you have and say plainly which part has no answer, or call a member again if another attempt could succeed.',
      ),
    );
  });

  test('a member that stays busy past the deadline: rejected, never held, with the number of offers', async () => {
    // slow still works on the previous test's long task (not cancelled): every offer is turned away busy.
    const { task, text } = await answer('busy');
    const [call] = records(task.id, 'member_call');
    assert.equal(call.status, 'rejected');
    assert.match(
      text,
      /slow stayed busy with other work for the whole 6s this call may wait and never took the task; it was offered the task 3 times\. Nothing was done on it\./,
    );
  });

  test('a call ended on the last allowed turn is not waited for: recorded undelivered', async () => {
    const { task, text } = await answer('last');
    assert.equal(text, 'waiting for worker');
    await until(() => (records(task.id, 'member_call').length > 0 ? true : undefined), 'the call accounted for');
    assert.equal(records(task.id, 'member_call')[0].delivered, false);
    assert.equal(records(task.id, 'task_continued').length, 0);
  });

  test('a member killed with SIGKILL while it works: unreachable after two missed reads', async () => {
    // slow still holds the long task of an earlier call (a timed-out call is not cancelled): free it first.
    for (const t of (await slow.listTasks({ status: 'TASK_STATE_WORKING' })).tasks) await slow.cancelTask(t.id);
    const slowStarts = () => traceOf(formation.member('planner').recordsDir).filter((r) => r.type === 'member_call_start' && r.member === 'slow').length;
    const before = slowStarts();
    const pending = answer('long');
    await until(() => (slowStarts() > before ? true : undefined), 'the long call started', 20_000);
    process.kill(formation.member('slow').pid, 'SIGKILL');
    const { task, text } = await pending;
    assert.equal(records(task.id, 'member_call')[0].status, 'unreachable', text);
    assert.match(text, /ended unreachable, with no answer from slow:\n<untrusted-content source=member:slow>\nslow's door stopped answering\n/);
  });
});

describe('egress: a caller whose capabilities.network.allow does not list localhost', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  after(() => formation?.mur.kill('SIGKILL'));

  test('staging prints W-RUN-008 and every call fails, with nothing sent', async () => {
    const roster = makeFormation(
      'name: closed\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  worker: { capsule: ./worker }\nrules:\n  - from: planner\n    to: [worker]\n',
      {
        planner: { manifest: memberManifest('planner', { allow: [] }), script: PLANNER },
        worker: { manifest: memberManifest('worker', { callee: true }), script: WORKER },
      },
    );
    formation = await runFormation(roster, home);
    assert.match(
      formation.mur.stderr(),
      /planner: warning W-RUN-008: member planner may call worker, but its capabilities\.network\.allow does not list localhost, so every call it makes fails/,
    );
    const task = await new MurmurClient(formation.member('planner').url).sendText('plain');
    const [call] = traceOf(formation.member('planner').recordsDir).filter((r) => r.type === 'tool_call' && r.task_id === task.id);
    assert.equal(call.status, 'error');
    assert.match(
      String(call.output),
      /"status":"failed","output":"worker's door is on localhost, which capabilities.network.allow does not list \(W-RUN-008\); nothing was sent"/,
    );
    assert.match(
      String(call.output),
      /\n\[call-member\] Call mcl_\w+ to worker ended failed, with no answer from worker\. Do not present an answer of your own as worker's\.$/,
    );
    assert.equal(traceOf(formation.member('worker').recordsDir).filter((r) => r.type === 'task_start').length, 0);
  });
});
