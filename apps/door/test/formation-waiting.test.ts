/**
 * A task waiting on its member calls (seed 004, "How the answer arrives"): the waiting and continuing statuses on its
 * stream, and a cancel while it waits — TASK_STATE_CANCELED, the call recorded abandoned, the member's task left
 * running (the runtime cancels a member's task only when it took it just after the calling task ended).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient, textMessage } from '@murmur/client';
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
  - match: ^nap
    turns:
      - sleep_ms: 1500
        answer: rested
  - match: ^long
    turns:
      - sleep_ms: 60000
        answer: late
default:
  turns:
    - answer: ok
`;

const trace = (dir: string) =>
  readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a task waiting on its member calls', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let planner: MurmurClient;
  let slow: MurmurClient;
  before(async () => {
    formation = await runFormation(
      makeFormation(
        'name: wait\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  slow: { capsule: ./slow }\nrules:\n  - from: planner\n    to: [slow]\n',
        {
          planner: { manifest: memberManifest('planner', { acceptance: 'queue' }), script: PLANNER },
          slow: { manifest: memberManifest('slow', { callee: true, acceptance: 'queue' }), script: SLOW },
        },
      ),
      home,
    );
    planner = new MurmurClient(formation.member('planner').url);
    slow = new MurmurClient(formation.member('slow').url);
  });
  after(() => formation?.mur.kill('SIGKILL'));

  test('the stream shows waiting on call-member once, then continuing with the answers', async () => {
    const statuses: string[] = [];
    for await (const event of planner.sendStreamingMessage({ message: textMessage('nap') })) {
      if (event.kind !== 'status') continue;
      const text = event.response.statusUpdate.status.message?.parts[0]?.text;
      if (text) statuses.push(text);
    }
    const waiting = statuses.indexOf('waiting on call-member: 1 call(s) outstanding');
    const continuing = statuses.indexOf('continuing with 1 member answer(s)');
    assert.ok(waiting >= 0 && continuing > waiting, statuses.join(' | '));
    assert.equal(statuses.filter((s) => s.startsWith('waiting on call-member')).length, 1);
    assert.equal(statuses.at(-1), 'task completed');
  });

  test('a cancel while the task waits: CANCELED, the call abandoned and accounted for, the member task left running', async () => {
    const task = await planner.sendText('long', { returnImmediately: true });
    const dir = formation.member('planner').recordsDir;
    const start = await until(() => trace(dir).find((r) => r.type === 'member_call_start' && r.task_id === task.id), 'the call started', 20_000);
    await until(async () => ((await planner.getTask(task.id)).status.state === 'TASK_STATE_WORKING' ? true : undefined), 'the task waiting');
    await new Promise((resolve) => setTimeout(resolve, 700));
    const canceled = await planner.cancelTask(task.id);
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const call = await until(() => trace(dir).find((r) => r.type === 'member_call' && r.task_id === task.id), 'the call accounted for');
    assert.equal(call.status, 'abandoned');
    assert.equal(call.delivered, false);
    assert.equal((await slow.getTask(start.member_task_id as string)).status.state, 'TASK_STATE_WORKING');
    await slow.cancelTask(start.member_task_id as string);
  });
});
