/**
 * The context budget and compaction (docs/agent-loop.md, "The context budget and compaction") on real doors: a
 * scripted model with a window, whose `usage:` makes every measure exact — older tool output elided, older turns
 * summarised, a compaction that cannot succeed ending the task `session ended` — and the fake OpenAI-compatible and
 * Anthropic providers with a real context limit, where a long task compacts and completes and no request is ever
 * refused for its length.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { fakeProviderPair } from './support/driver-capsule.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { isStatus } from './support/fake-providers/fake-turn.js';
import { send, waitForState } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const doors: DoorProcess[] = [];
after(() => Promise.all(doors.map((d) => d.stop())));

function scriptedManifest(opts: { window: number; threshold: number; keepTurns: number }): string {
  return `name: compacting
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: scripted
  max_turns: 10
  choices:
    scripted:
      driver: script
      script: script.yaml
      context_window: ${opts.window}
  compaction:
    threshold: ${opts.threshold}
    keep_turns: ${opts.keepTurns}
capabilities:
  shell:
    allow: [bash]
`;
}

async function door(text: string, script?: string): Promise<DoorProcess> {
  const d = await runDoor(makeCapsule(text, script));
  doors.push(d);
  return d;
}
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const answerText = (task: any): string => task.artifacts?.[0]?.parts?.[0]?.text ?? '';
const compactions = (d: DoorProcess) => readTrace(d.recordsDir).filter((r) => r.type === 'compaction');

describe('a scripted model with a window', () => {
  test('past the threshold, older tool output is elided before the next call; the latest turn stays whole', async () => {
    const script = `
default:
  turns:
    - tools:
        - tool: bash
          input: { command: "head -c 8000 /dev/zero | tr '\\\\0' x" }
    - tools:
        - tool: bash
          input: { command: "head -c 8000 /dev/zero | tr '\\\\0' y" }
    - answer: "latest kept: {{tool.exit_code}}"
`;
    const d = await door(scriptedManifest({ window: 8000, threshold: 0.5, keepTurns: 1 }), script);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task));
    assert.equal(answerText(task), 'latest kept: 0');
    const [record, ...more] = compactions(d);
    assert.equal(more.length, 0, 'one compaction');
    assert.equal(record.turn, 3);
    // The scripted calls report no usage: the runtime's own estimate is what the check counted.
    assert.equal(record.tokens_before_source, 'estimate');
    assert.ok((record.tokens_before as number) > 4000, `before ${record.tokens_before}`);
    assert.ok((record.tokens_after as number) < 4000, `after ${record.tokens_after}`);
    assert.equal(record.budget_tokens, 8000);
    assert.equal(record.threshold, 0.5);
    assert.equal(record.elided_results, 1);
    assert.equal(record.summarized_messages, 0);
    assert.equal(record.failed, undefined);
  });

  test('when eliding is not enough, the older turns are summarised by the model into one message the next call reads', async () => {
    const long = (c: string) => c.repeat(8000);
    const script = `
default:
  turns:
    - usage: { input: 300, output: 2000 }
      text: ["${long('a')}"]
    - usage: { input: 2400, output: 2000 }
      text: ["${long('b')}"]
    - answer: "saw <{{continuation}}>"
`;
    const d = await door(scriptedManifest({ window: 8000, threshold: 0.5, keepTurns: 1 }), script);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(task).slice(0, 500));
    assert.match(
      answerText(task),
      /^saw <\[compaction\] The conversation before this point was compacted to save context\. A summary of it:\nscripted summary of \d+ characters of earlier conversation>$/,
    );
    const [record] = compactions(d);
    assert.equal(record.summarized_messages, 1);
    assert.ok((record.tokens_after as number) < (record.tokens_before as number));
    // The summary call is not a turn: three inference records, turns 1 to 3.
    assert.deepEqual(
      readTrace(d.recordsDir)
        .filter((r) => r.type === 'inference')
        .map((r) => r.turn),
      [1, 2, 3],
    );
  });

  test('a compaction that cannot bring the conversation within its budget ends the task failed, session ended', async () => {
    const script = `
default:
  turns:
    - usage: { input: 300, output: 10000 }
      text: ["${'c'.repeat(40000)}"]
    - answer: never
`;
    const d = await door(scriptedManifest({ window: 8000, threshold: 0.5, keepTurns: 1 }), script);
    const task = taskOf(await send(d.url, 'go'));
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    assert.equal(task.status.message.parts[0].text, 'session ended');
    const [record] = compactions(d);
    assert.equal(record.failed, "only the task's message and the latest 1 turns are left, and they alone are past the threshold");
    assert.equal(readTrace(d.recordsDir).filter((r) => r.type === 'inference').length, 1, 'the call past the budget was not made');
  });

  test('session-status reports the window, the budget and its basis', async () => {
    const script =
      'default:\n  turns:\n    - usage: { input: 100, output: 5 }\n      tools:\n        - tool: session-status\n          input: {}\n      answer: "{{tool.stdout}}"\n';
    const manifest = scriptedManifest({ window: 8000, threshold: 0.8, keepTurns: 4 }).replace(
      '      context_window: 8000',
      '      context_window: 8000\n      max_input_tokens: 5000',
    );
    const d = await door(manifest, script);
    const status = JSON.parse(answerText(taskOf(await send(d.url, 'status'))));
    assert.deepEqual(status.context, { used_tokens: 105, window_tokens: 8000, budget_tokens: 5000, budget_basis: 'max_input_tokens', measured_by: 'actual' });
  });
});

describe('the provider drivers against a real context limit', () => {
  const LIMIT = 6000;
  const fakes = fakeProviderPair({ contextLimitTokens: LIMIT });

  for (const [label, driver, fakeOf, key] of [
    ['openai-compatible', 'openai-compatible', () => fakes.openai, 'MURMUR_TEST_OPENAI_KEY'],
    ['anthropic', 'anthropic', () => fakes.anthropic, 'MURMUR_TEST_ANTHROPIC_KEY'],
  ] as const) {
    test(`${label}: a long task crosses the threshold, compacts and completes; no request is refused for its length`, async () => {
      const fake = fakeOf();
      const manifest = `name: long-${label}
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: model
  max_turns: 12
  choices:
    model:
      driver: ${driver}
      base_url: ${fake.baseUrl}
      model: fake-model
      api_key_env: ${key}
      max_output_tokens: 1000
      context_window: ${LIMIT}
      idle_timeout_secs: 5
  compaction:
    keep_turns: 2
capabilities:
  shell:
    allow: [bash]
`;
      const d = await door(manifest);
      const before = fake.requests.length;
      for (let i = 1; i <= 8; i++) {
        fake.enqueue({
          toolCalls: [{ id: `call_long${i}`, name: 'bash', input: { command: `head -c 3200 /dev/zero | tr '\\0' ${'abcdefgh'[i - 1]}` } }],
          usage: { input: 0, output: 20 },
        });
      }
      fake.enqueue({ text: ['finished'], usage: { input: 0, output: 3 } });
      const task = taskOf(await send(d.url, 'a long job', {}, { returnImmediately: true }));
      const done = await waitForState(d.url, task.id, 'TASK_STATE_COMPLETED', 30_000);
      assert.equal(done.artifacts[0].parts[0].text, 'finished');
      const served = fake.requests.slice(before);
      assert.equal(served.length, 9);
      assert.ok(
        served.every((r) => !isStatus(r.reply)),
        'no request was refused for its length',
      );
      const records = compactions(d);
      assert.ok(records.length >= 1, 'the conversation was compacted');
      assert.ok(
        records.every((r) => r.failed === undefined && r.tokens_before_source === 'actual' && (r.tokens_after as number) < (r.tokens_before as number)),
      );
      assert.ok(records.every((r) => r.budget_tokens === LIMIT - 1000));
    });
  }
});
