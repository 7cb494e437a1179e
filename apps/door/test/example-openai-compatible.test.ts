/**
 * examples/openai-compatible runs as a user runs it against a real server — two environment variables — here
 * pointed at the fake OpenAI-compatible provider: a task with a real bash call completes.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, runDoor, tempDir } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { assertKeysAbsent } from './support/key-scan.js';
import { send, waitForState } from './support/rpc.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/openai-compatible/', import.meta.url));
const KEY = 'sk-example-Z3cr3tK3yValue0003';
const fake = new FakeProvider('openai', { expectKey: KEY });
let door: DoorProcess;

before(async () => {
  await fake.start();
  process.env.OPENAI_BASE_URL = fake.baseUrl;
  process.env.OPENAI_API_KEY = KEY;
  delete process.env.OPENAI_MODEL;
  const dir = tempDir('example');
  cpSync(EXAMPLE, dir, { recursive: true });
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
