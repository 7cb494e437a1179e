/**
 * examples/openai-compatible runs as a user runs it against a real server — two environment variables — here
 * pointed at the fake OpenAI-compatible provider: a task with a real bash call completes; and a longer task uses
 * what keeps a real model's run within bounds (docs/agent-loop.md, "Governors"): a question to the sender, the done
 * check sending the model back, compaction under a small local model's window, and the spend ceilings.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, runDoor, tempDir } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { assertKeysAbsent } from './support/key-scan.js';
import { send, waitForState } from './support/rpc.js';
import { readTrace } from './support/tasks.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/openai-compatible/', import.meta.url));
const KEY = 'sk-example-Z3cr3tK3yValue0003';
/** A small local model's window: the copy of the example the test runs declares it, so a long task compacts. */
const SMALL_WINDOW = 8000;
const fake = new FakeProvider('openai', { expectKey: KEY, contextLimitTokens: SMALL_WINDOW });
let door: DoorProcess;

before(async () => {
  await fake.start();
  process.env.OPENAI_BASE_URL = fake.baseUrl;
  process.env.OPENAI_API_KEY = KEY;
  delete process.env.OPENAI_MODEL;
  const dir = tempDir('example');
  cpSync(EXAMPLE, dir, { recursive: true });
  const manifest = path.join(dir, 'murmur.yaml');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('context_window: 128000', `context_window: ${SMALL_WINDOW}`));
  door = await runDoor(dir);
});

after(async () => {
  await door.stop();
  assertKeysAbsent(door, [KEY]);
  await fake.close();
});

test('the example capsule answers through the openai-compatible driver, with a real tool call', async () => {
  fake.enqueue(
    { text: ['Let me look.'], toolCalls: [{ id: 'call_1', name: 'bash', input: { command: 'echo 42' } }], usage: { input: 50, output: 9 } },
    { text: ['The answer is ', '42.'], usage: { input: 90, output: 5 } },
  );
  const task = taskOf(await send(door.url, 'what does echo 42 print?', {}, { returnImmediately: true }));
  const done = await waitForState(door.url, task.id, 'TASK_STATE_COMPLETED', 10_000);
  assert.equal(done.artifacts[0].parts[0].text, 'The answer is 42.');
  const [first, second] = fake.requests;
  assert.equal(first.body.model, 'gpt-4o-mini', "OPENAI_MODEL unset: the manifest's default");
  assert.equal(first.headers.authorization, `Bearer ${KEY}`);
  assert.match(second.body.messages.at(-1).content, /Stdout:\n42\n/);
});

test('a longer task within bounds: it asks the sender, the done check sends it back, the conversation compacts, spend is counted', async () => {
  const big = (c: string) => `head -c 7000 /dev/zero | tr '\\0' ${c}`;
  fake.enqueue(
    { toolCalls: [{ id: 'call_ask', name: 'request-input', input: { prompt: 'Which file should I write?' } }], usage: { input: 0, output: 12 } },
    {
      toolCalls: [{ id: 'call_w', name: 'bash', input: { command: `echo draft > notes.txt; echo 'polish notes.txt' > open-items.txt; ${big('a')}` } }],
      usage: { input: 0, output: 30 },
    },
    { toolCalls: [{ id: 'call_r', name: 'bash', input: { command: big('b') } }], usage: { input: 0, output: 10 } },
    { text: ['Wrote notes.txt.'], usage: { input: 0, output: 4 } },
    {
      toolCalls: [{ id: 'call_p', name: 'bash', input: { command: `echo polished >> notes.txt; : > open-items.txt; ${big('c')}` } }],
      usage: { input: 0, output: 20 },
    },
    { toolCalls: [{ id: 'call_s', name: 'session-status', input: {} }], usage: { input: 0, output: 5 } },
    { text: ['Done: notes.txt is written and polished.'], usage: { input: 0, output: 9 } },
  );
  const asked = taskOf(await send(door.url, 'write the notes', {}, { returnImmediately: true }));
  const waiting = await waitForState(door.url, asked.id, 'TASK_STATE_INPUT_REQUIRED', 10_000);
  assert.equal(waiting.artifacts[0].parts[0].text, 'Which file should I write?');
  await send(door.url, 'notes.txt', { taskId: asked.id, contextId: asked.contextId }, { returnImmediately: true });
  const done = await waitForState(door.url, asked.id, 'TASK_STATE_COMPLETED', 30_000);
  assert.equal(done.artifacts[0].parts[0].text, 'Done: notes.txt is written and polished.');
  assert.equal(readFileSync(path.join(door.recordsDir, 'work', 'notes.txt'), 'utf8'), 'draft\npolished\n');
  const trace = readTrace(door.recordsDir).filter((r) => r.task_id === asked.id);
  assert.deepEqual(
    trace.filter((r) => r.type === 'done_check').map((r) => r.outcome),
    ['sent_back', 'passed'],
  );
  const compactions = trace.filter((r) => r.type === 'compaction');
  assert.ok(compactions.length >= 1 && compactions.every((r) => r.failed === undefined), JSON.stringify(compactions));
  assert.ok(
    fake.requests.every((r) => !('status' in r.reply)),
    'no request was refused for its length',
  );
  const status = trace.find((r) => r.type === 'session_status')?.status as { spend: { ceiling: number; machine: { ceiling: number; tokens_today: number } } };
  assert.equal(status.spend.ceiling, 500000);
  assert.equal(status.spend.machine.ceiling, 5000000);
  assert.ok(status.spend.machine.tokens_today > 0);
});
