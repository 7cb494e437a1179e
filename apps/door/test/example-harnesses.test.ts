/**
 * examples/claude-code and examples/codex run as their READMEs say — an endpoint, a key and a model in the
 * environment — here pointed at the fake providers: `mur run <example> --task …` answers its launch task, the
 * session's stream carries the run's frames, its record holds the harness's records, and the key is nowhere in the
 * session's records or the door's output. Each example is skipped, naming the install command, where its harness
 * cannot be had.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type DoorProcess, runDoor, tempDir } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { harnessMissing } from './support/harness-capsule.js';
import { claudeModel, codexModel } from './support/harness-model.js';
import { assertKeysAbsent } from './support/key-scan.js';
import { waitForState } from './support/rpc.js';
import { frameOf, kindOf, watchSession } from './support/sse.js';
import { readTrace } from './support/tasks.js';

const example = (name: string) => {
  const dir = tempDir('example');
  cpSync(fileURLToPath(new URL(`../../../../examples/${name}/`, import.meta.url)), dir, { recursive: true });
  return dir;
};

const CASES = [
  {
    name: 'claude-code',
    kind: 'anthropic',
    respond: claudeModel,
    env: (url: string, key: string) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: key }),
    model: 'claude-sonnet-4-5',
  },
  {
    name: 'codex',
    kind: 'responses',
    respond: codexModel,
    env: (url: string, key: string) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: key }),
    model: 'gpt-5-codex',
  },
] as const;

for (const example_ of CASES) {
  const missing = harnessMissing(example_.name);
  describe(`examples/${example_.name}`, { skip: missing ?? false }, () => {
    const key = `sk-example-${example_.name}-K3yValue0007`;
    const fake = new FakeProvider(example_.kind, { expectKey: key, respond: example_.respond });
    let door: DoorProcess | undefined;

    after(async () => {
      await door?.stop();
      if (door) assertKeysAbsent(door, [key]);
      await fake.close();
    });

    test('mur run answers the launch task; its stream and its record show the run', async () => {
      await fake.start();
      for (const [name, value] of Object.entries(example_.env(fake.baseUrl, key))) process.env[name] = value;
      delete process.env.CLAUDE_MODEL;
      delete process.env.CODEX_MODEL;
      door = await runDoor(example(example_.name), ['--task', 'say hello']);
      const done = await waitForState(door.url, door.launchTaskId!, 'TASK_STATE_COMPLETED', 60_000);
      assert.equal(done.artifacts[0].parts[0].text, 'answer to: say hello');
      // WatchSession replays the session's buffer: the run's text frames as the console shows them.
      const watch = await watchSession(door.url);
      const text = await watch.waitForEvent((e) => kindOf(e) === 'frame:text' && frameOf(e).text.includes('say hello'), 'the answer’s text frame');
      watch.abort();
      assert.equal(text.data.result.statusUpdate.taskId, door.launchTaskId);
      const records = readTrace(door.recordsDir);
      assert.deepEqual(
        records.filter((r) => r.type.startsWith('harness_')).map((r) => r.type),
        ['harness_start', 'harness_end'],
      );
      assert.equal(records.find((r) => r.type === 'inference')!.model, example_.model);
    });
  });
  if (missing) test(`examples/${example_.name}: its harness is not installed`, { skip: missing }, () => undefined);
}
