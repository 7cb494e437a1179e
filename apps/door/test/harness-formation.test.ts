/**
 * A harness member in a formation (seed 004; docs/harness.md): Claude Code for real as the member `coder`, calling the
 * scripted `worker` through the runtime's loopback tool server — whose answer reaches it as the prompt of a resume of
 * its same session — and ending a task the member `lead` sent without an answer, its harness having kept going and
 * finished after the call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { tempDir } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';
import { harnessMissing } from './support/harness-capsule.js';
import { claudeModel } from './support/harness-model.js';
import { rpc, send, waitFor } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const missing = harnessMissing('claude-code');
const fake = new FakeProvider('anthropic', { respond: claudeModel });
let formation: FormationProcess;

const ROSTER = `name: harnessed
entry: lead
members:
  lead: { capsule: ./lead }
  coder: { capsule: ./coder }
  worker: { capsule: ./worker }
rules:
  - from: lead
    to: [coder]
  - from: coder
    to: [worker]
`;

const LEAD = `
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: coder, task: "{{task.text}}" }
      answer: waiting
    - answer: "{{continuation}}"
`;

const coderManifest = (baseUrl: string) =>
  [
    'name: coder',
    'version: 0.1.0',
    'inference:',
    '  transport: process',
    '  max_turns: 10',
    '  harness:',
    '    name: claude-code',
    '    model: claude-sonnet-4-5',
    `    base_url: ${baseUrl}`,
    '    api_key_env: MURMUR_TEST_FORMATION_KEY',
    'capabilities:',
    '  network:',
    '    allow: [localhost]',
    'exports:',
    '  peer_tasks:',
    '    accept: true',
    '',
  ].join('\n');

describe('a harness member of a formation', { skip: missing ?? false }, () => {
  before(async () => {
    await fake.start();
    process.env.MURMUR_TEST_FORMATION_KEY = 'sk-ant-formation';
    const roster = makeFormation(ROSTER, {
      lead: { manifest: memberManifest('lead'), script: LEAD },
      coder: { manifest: coderManifest(fake.baseUrl) },
      worker: { manifest: memberManifest('worker', { callee: true }), script: 'default:\n  turns:\n    - answer: "WORKER SAYS 42"\n' },
    });
    formation = await runFormation(roster, tempDir('home'));
  });

  after(async () => {
    formation?.mur.child.kill('SIGTERM');
    await formation?.mur.exited;
    await fake.close();
  });

  test('call-member through the tool server: the answer arrives as the prompt of a resume of the same session', async () => {
    const coder = formation.member('coder');
    const task = taskOf(await send(coder.url, '[[tool:call-member {"member":"worker","task":"count the apples"}]]'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const answer = task.artifacts[0].parts[0].text as string;
    assert.match(
      answer,
      /^answer to: \[call-member\] call mcl_[0-9a-f]{32} to worker ended completed:\n<untrusted-content source=member:worker>\nWORKER SAYS 42\n<\/untrusted-content>/,
    );
    const records = readTrace(coder.recordsDir).filter((r) => r.task_id === task.id);
    const starts = records.filter((r) => r.type === 'harness_start');
    assert.deepEqual(
      starts.map((s) => s.session_mode),
      ['new', 'resume'],
    );
    assert.equal(starts[1]!.harness_session_id, starts[0]!.harness_session_id);
    assert.equal(records.find((r) => r.type === 'tool_call')!.tool, 'call-member');
    assert.equal(records.filter((r) => r.type === 'task_continued').length, 1);
    const call = records.find((r) => r.type === 'member_call')!;
    assert.deepEqual([call.member, call.status, call.delivered], ['worker', 'completed', true]);
  });

  test('end-without-answer: the harness kept going after the call and finished, and the task ends without an answer', async () => {
    const lead = formation.member('lead');
    const coder = formation.member('coder');
    const asked = taskOf(await send(lead.url, '[[tool:end-without-answer {"reason":"the worker has no apples"}]]'));
    assert.equal(asked.status.state, 'TASK_STATE_COMPLETED');
    assert.match(
      asked.artifacts[0].parts[0].text,
      /call mcl_[0-9a-f]{32} to coder ended no_answer, with no answer from coder:\n<untrusted-content source=member:coder>\nthe worker has no apples\n/,
    );
    const coderTask = await waitFor(
      async () => readTrace(coder.recordsDir).find((r) => r.type === 'task_end' && r.exit_status === 'no_answer'),
      'the coder’s no-answer ending',
    );
    assert.equal(coderTask.status, 'the worker has no apples');
    const got = await rpc(coder.url, 'GetTask', { id: coderTask.task_id });
    assert.equal(got.json.result.status.state, 'TASK_STATE_FAILED');
    assert.equal(got.json.result.metadata.murmur.noAnswer, true);
    // The harness answered after the call (its text is not the task's answer).
    assert.equal(readTrace(coder.recordsDir).find((r) => r.type === 'harness_end' && r.task_id === coderTask.task_id)!.outcome, 'answered');
  });
});

if (missing) test('Claude Code is not installed', { skip: missing }, () => undefined);
