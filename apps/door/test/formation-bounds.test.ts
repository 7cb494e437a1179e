/**
 * A call's bounds on real doors (seed 004, "Bound", "How the answer arrives"): MURMUR_DELEGATION_TIMEOUT_SECS bounds
 * a member call when the calling member's murmur.yaml has no lifecycle.delegation_deadline_secs, and the key wins
 * when it has one; a continuation's turns count against inference.max_turns.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const CALLER = `
rules:
  - match: ^rounds
    turns:
      - tools:
          - tool: call-member
            input: { member: slow, task: "quick" }
        answer: "round one"
      - tools:
          - tool: call-member
            input: { member: slow, task: "quick" }
        answer: "{{continuation}}"
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: slow, task: "{{task.text}}" }
      answer: "{{tool.content}}"
    - answer: "{{continuation}}"
`;

const SLOW = `
rules:
  - match: ^quick
    turns:
      - answer: "slow: quick"
default:
  turns:
    - sleep_ms: 60000
      answer: late
`;

type TraceRecord = Record<string, unknown> & { type: string };
const trace = (dir: string): TraceRecord[] =>
  readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TraceRecord);
const responseOf = (task: { artifacts?: { artifactId: string; parts: { text?: string }[] }[] }) =>
  task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '';

describe('a member call’s deadline and turns', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let slow: MurmurClient;
  const records = (member: string, taskId: string, type: string) =>
    trace(formation.member(member).recordsDir).filter((r) => r.type === type && r.task_id === taskId);
  const freeSlow = async () => {
    for (const t of (await slow.listTasks({ status: 'TASK_STATE_WORKING' })).tasks) await slow.cancelTask(t.id);
  };

  before(async () => {
    formation = await runFormation(
      makeFormation(
        'name: bounds\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  keyed: { capsule: ./keyed }\n  slow: { capsule: ./slow }\nrules:\n  - from: planner\n    to: [slow]\n  - from: keyed\n    to: [slow]\n',
        {
          planner: { manifest: memberManifest('planner', { acceptance: 'queue', maxTurns: 4 }), script: CALLER },
          keyed: { manifest: memberManifest('keyed', { acceptance: 'queue', lifecycle: ['delegation_deadline_secs: 4'] }), script: CALLER },
          slow: { manifest: memberManifest('slow', { callee: true, acceptance: 'queue' }), script: SLOW },
        },
      ),
      home,
      [],
      { MURMUR_DELEGATION_TIMEOUT_SECS: '2' },
    );
    slow = new MurmurClient(formation.member('slow').url);
  });
  // Each test leaves slow free for the next, whether it passed or not.
  afterEach(() => freeSlow());
  after(() => formation?.mur.kill('SIGKILL'));

  test('without lifecycle.delegation_deadline_secs, MURMUR_DELEGATION_TIMEOUT_SECS bounds the call', async () => {
    const started = Date.now();
    const task = await new MurmurClient(formation.member('planner').url).sendText('long');
    const text = responseOf(task);
    const [call] = records('planner', task.id, 'member_call');
    assert.equal(call.status, 'timed_out');
    assert.match(
      text,
      /<untrusted-content source=member:slow>\nslow did not answer within 2s; it was not cancelled and may still be working\n<\/untrusted-content>/,
    );
    assert.ok((call.elapsed_ms as number) >= 2_000 && (call.elapsed_ms as number) < 3_500, `elapsed ${call.elapsed_ms} ms`);
    assert.ok(Date.now() - started < 10_000);
  });

  test('the calling member’s lifecycle.delegation_deadline_secs wins over the variable', async () => {
    const task = await new MurmurClient(formation.member('keyed').url).sendText('long');
    const [call] = records('keyed', task.id, 'member_call');
    assert.equal(call.status, 'timed_out');
    assert.match(responseOf(task), /slow did not answer within 4s; it was not cancelled/);
    assert.ok((call.elapsed_ms as number) >= 4_000 && (call.elapsed_ms as number) < 5_500, `elapsed ${call.elapsed_ms} ms`);
  });

  test('a continuation’s turns count against max_turns: the second round, on the last allowed turn, is not waited for', async () => {
    const planner = new MurmurClient(formation.member('planner').url);
    const task = await planner.sendText('rounds');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    // max_turns 4: turn 1 calls slow, turn 2 ends the turn (the task waits), the continuation's turn 3 calls slow again,
    // and turn 4, the last allowed, answers with round one's continuation and ends without waiting for round two.
    assert.match(responseOf(task), /^\[call-member\] call mcl_\w+ to slow ended completed:\n<untrusted-content source=member:slow>\nslow: quick\n/);
    assert.equal(records('planner', task.id, 'task_continued').length, 1);
    assert.equal(records('planner', task.id, 'inference').length, 4);
    const calls = await until(() => {
      const all = records('planner', task.id, 'member_call');
      return all.length === 2 ? all : undefined;
    }, 'both calls accounted for');
    assert.deepEqual(
      calls.map((c) => c.delivered),
      [true, false],
    );
  });
});
