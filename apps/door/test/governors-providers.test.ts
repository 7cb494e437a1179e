/**
 * The governors on the provider drivers (docs/agent-loop.md, "Governors"), against the fake OpenAI-compatible and
 * Anthropic providers: an on_tool_call hook denying a real model's call (the model reads why, nothing ran),
 * keep_working sending the model back after its answer, an on_task_end hook's artifact, and the session's token
 * ceiling refusing the call that would pass it — what the model is sent checked on the wire.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { fakeProviderPair } from './support/driver-capsule.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import type { FakeProvider } from './support/fake-providers/fake-provider.js';
import { send, waitForState } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const fakes = fakeProviderPair();
const doors: DoorProcess[] = [];
after(() => Promise.all(doors.map((d) => d.stop())));

function manifest(driver: 'openai-compatible' | 'anthropic', fake: FakeProvider, key: string): string {
  return `name: governed-${driver}
version: 0.1.0
lifecycle:
  task_acceptance: queue
  keep_working:
    limit: 1
    message: "Check your work once more, then answer again."
inference:
  driver: model
  max_turns: 8
  max_session_tokens: 3000
  choices:
    model:
      driver: ${driver}
      base_url: ${fake.baseUrl}
      model: fake-model
      api_key_env: ${key}
      max_output_tokens: 500
      idle_timeout_secs: 5
capabilities:
  shell:
    allow: [bash]
hooks:
  on_tool_call:
    - name: no-rm
      command: "if grep -q 'rm -rf'; then echo 'rm -rf is not allowed here'; exit 2; fi"
  on_task_end:
    - name: stamp
      command: "echo '{\\"artifact\\": \\"reviewed\\"}'"
`;
}

/** Every text the request carried, whatever the provider's message shape. */
const sentText = (body: unknown): string => JSON.stringify(body);

describe('the governors on the provider drivers', () => {
  for (const [label, driver, fakeOf, key] of [
    ['openai-compatible', 'openai-compatible', () => fakes.openai, 'MURMUR_TEST_OPENAI_KEY'],
    ['anthropic', 'anthropic', () => fakes.anthropic, 'MURMUR_TEST_ANTHROPIC_KEY'],
  ] as const) {
    test(`${label}: a denied call, keep_working, a hook artifact, then the session ceiling`, async () => {
      const fake = fakeOf();
      const d = await runDoor(makeCapsule(manifest(driver, fake, key)));
      doors.push(d);
      const first = fake.requests.length;
      fake.enqueue(
        { toolCalls: [{ id: 'call_rm', name: 'bash', input: { command: 'touch gone.txt; rm -rf gone.txt' } }], usage: { input: 400, output: 20 } },
        { text: ['Cleaned up.'], usage: { input: 450, output: 5 } },
        { text: ['Checked: clean.'], usage: { input: 480, output: 5 } },
      );
      const task = taskOf(await send(d.url, 'clean up', {}, { returnImmediately: true }));
      const done = await waitForState(d.url, task.id, 'TASK_STATE_COMPLETED', 15_000);
      assert.equal(done.artifacts[0].parts[0].text, 'Checked: clean.');
      assert.equal(existsSync(path.join(d.recordsDir, 'work', 'gone.txt')), false, 'the denied command never ran');
      const [, second, third] = fake.requests.slice(first);
      assert.match(sentText(second.body), /tool call denied by the on_tool_call hook 'no-rm': rm -rf is not allowed here/);
      assert.match(sentText(third.body), /Check your work once more, then answer again\./);
      const trace = readTrace(d.recordsDir);
      assert.deepEqual(
        trace.filter((r) => r.type === 'hook_artifact').map((r) => r.content),
        ['reviewed'],
      );
      // 1,360 tokens spent; the next task spends 1,510 more, so the call after it (its conversation plus the 500-token output cap) would pass 3,000.
      fake.enqueue({ text: ['big'], usage: { input: 1500, output: 10 } });
      const second2 = taskOf(await send(d.url, 'spend more', {}, { returnImmediately: true }));
      await waitForState(d.url, second2.id, 'TASK_STATE_COMPLETED', 15_000).catch(() => undefined);
      const third2 = taskOf(await send(d.url, 'and more', {}, { returnImmediately: true }));
      const refused = await waitForState(d.url, third2.id, 'TASK_STATE_FAILED', 15_000);
      assert.match(
        refused.status.message.parts[0].text,
        /^spend ceiling reached: inference\.max_session_tokens is 3000 and this session has spent \d+ tokens; the next inference call would need about \d+ more$/,
      );
      assert.ok(readTrace(d.recordsDir).some((r) => r.type === 'spend_refused' && r.task_id === third2.id && r.ceiling === 'session'));
    });
  }
});
