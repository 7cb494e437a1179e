/**
 * end-without-answer and no-answer chains on real doors (seed 004, "end-without-answer", "How the answer arrives";
 * seed 000, "Task metadata"): top → mid → leaf, where leaf fails and mid ends its task without an answer.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { until } from './support/client-cli.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, makeFormation, memberManifest, runFormation } from './support/formation.js';

const TOP = `
rules:
  - match: ^solo
    turns:
      - tools:
          - tool: end-without-answer
            input: { reason: "none" }
        answer: "{{tool.content}}"
  - match: ^bare
    turns:
      - tools:
          - tool: end-without-answer
            input: {}
        answer: "{{tool.content}}"
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: mid, task: "chain" }
      answer: waiting
    - answer: "{{continuation}}"
`;

const MID = `
default:
  turns:
    - tools:
        - tool: call-member
          input: { member: leaf, task: "go" }
        - tool: end-without-answer
          input: { reason: "too early" }
      answer: waiting
    - tools:
        - tool: end-without-answer
          input: { reason: "  " }
        - tool: end-without-answer
          input: { reason: "leaf gave no answer" }
        - tool: end-without-answer
          input: { reason: "again" }
        - tool: call-member
          input: { member: leaf, task: "more" }
        - tool: end-without-answer
          input: {}
      answer: "never read"
`;

const LEAF = 'default:\n  turns:\n    - fail: "leaf broke"\n';

const ROSTER = `name: chain
entry: top
members:
  top: { capsule: ./top }
  mid: { capsule: ./mid }
  leaf: { capsule: ./leaf }
rules:
  - from: top
    to: [mid]
  - from: mid
    to: [leaf]
`;

const trace = (dir: string) =>
  readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('end-without-answer down a chain', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let top: MurmurClient;
  before(async () => {
    formation = await runFormation(
      makeFormation(ROSTER, {
        top: { manifest: memberManifest('top', { acceptance: 'queue' }), script: TOP },
        mid: { manifest: memberManifest('mid', { callee: true, acceptance: 'queue' }), script: MID },
        leaf: { manifest: memberManifest('leaf', { callee: true }), script: LEAF },
      }),
      home,
    );
    top = new MurmurClient(formation.member('top').url);
  });
  after(() => formation?.mur.kill('SIGKILL'));

  test('the entry member may not end without an answer: no formation member sent its task', async () => {
    const task = await top.sendText('solo');
    assert.match(
      task.artifacts![0].parts[0].text!,
      /'end-without-answer' ends only a task another formation member sent; no formation member sent this one\. Reply in text, saying plainly which part has no answer\./,
    );
    // A missing reason is judged in seed 004's order too: after this check, not before it as the schema's `reason is required`.
    const bare = await top.sendText('bare');
    assert.match(
      bare.artifacts![0].parts[0].text!,
      /'end-without-answer' ends only a task another formation member sent; no formation member sent this one\. Reply in text, saying plainly which part has no answer\./,
    );
  });

  test('mid ends without an answer: refusals in order, FAILED with noAnswer and noAnswerBelow; top reads no_answer with the further-down line', async () => {
    const task = await top.sendText('chain');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const text = task.artifacts![0].parts[0].text!;
    const midCall = trace(formation.member('top').recordsDir).find((r) => r.type === 'member_call' && r.task_id === task.id)!;
    assert.equal(midCall.status, 'no_answer');
    assert.match(
      text,
      /\[call-member\] call mcl_\w+ to mid ended no_answer, with no answer from mid:\n<untrusted-content source=member:mid>\nleaf gave no answer\n<\/untrusted-content>/,
    );
    assert.match(
      text,
      new RegExp(`\\[call-member\\] No answer came from: mid \\(call ${midCall.call_id}, no_answer; further down, no answer came from leaf \\(failed\\)\\)\\.`),
    );
    // top's own task completed, and says which answers it lacks.
    assert.deepEqual(task.metadata, {
      murmur: {
        noAnswerBelow: [
          { member: 'mid', status: 'no_answer' },
          { member: 'leaf', status: 'failed' },
        ],
      },
    });

    const mid = new MurmurClient(formation.member('mid').url);
    const midTask = await mid.getTask(midCall.member_task_id as string);
    assert.equal(midTask.status.state, 'TASK_STATE_FAILED');
    assert.equal(midTask.status.message?.parts[0].text, 'leaf gave no answer');
    assert.deepEqual(midTask.metadata, { murmur: { noAnswer: true, noAnswerBelow: [{ member: 'leaf', status: 'failed' }] } });
    const midTrace = trace(formation.member('mid').recordsDir);
    const outputs = midTrace.filter((r) => r.type === 'tool_call').map((r) => String(r.output));
    assert.match(
      outputs[1],
      /Call mcl_\w+ to leaf is still out; its answer arrives after you end your turn\. Call end-without-answer only when no call is left to wait for\./,
    );
    assert.match(outputs[2], /'end-without-answer' needs a reason: say in a sentence why you have no answer\./);
    assert.match(
      outputs[3],
      /\{"status":"ending","caller":"top"\}\n<\/untrusted-content>\n\[end-without-answer\] This task ends without an answer once this turn's tool calls finish, and top is told you gave none\.$/,
    );
    assert.match(outputs[4], /This task is already ending without an answer\./);
    assert.match(outputs[5], /'call-member' makes no call from a task that is ending without an answer\./);
    // No reason member at all reads as a blank one (seed 004, "reason is missing or blank"), checked before "already ending".
    assert.match(outputs[6], /'end-without-answer' needs a reason: say in a sentence why you have no answer\./);
    const end = midTrace.find((r) => r.type === 'task_end' && r.task_id === midTask.id)!;
    assert.equal(end.exit_status, 'no_answer');
    // Three inference calls: the attempt ended once the turn's tool calls finished, with no further call.
    assert.equal(midTrace.filter((r) => r.type === 'inference' && r.task_id === midTask.id).length, 3);
    const result = path.join(formation.member('mid').recordsDir, 'out', 'result.txt');
    await until(() => (readFileSync(result, 'utf8') === 'no answer: leaf gave no answer' ? true : undefined), 'out/result.txt says no answer');
  });
});
