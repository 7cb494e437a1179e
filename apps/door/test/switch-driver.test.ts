/**
 * switch-driver on a real door (seed 004; docs/drivers.md): a switch mid-task across both fake providers and back,
 * applied at the next inference call, with control_change / control_applied records; refusals as tool errors with
 * control_refused; thinking blocks not carried across; and the launch checks of the starting choice.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { ANTHROPIC_KEY, driverManifest, exportKeys, OPENAI_KEY } from './support/driver-capsule.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import { assertKeysAbsent } from './support/key-scan.js';
import { send, waitForState } from './support/rpc.js';
import { readTrace, runMur } from './support/tasks.js';

exportKeys();
const fakes = { openai: new FakeProvider('openai', { expectKey: OPENAI_KEY }), anthropic: new FakeProvider('anthropic', { expectKey: ANTHROPIC_KEY }) };
let door: DoorProcess;

before(async () => {
  await fakes.openai.start();
  await fakes.anthropic.start();
  door = await runDoor(makeCapsule(driverManifest({ start: 'fast', ...fakes })));
});

after(async () => {
  await door.stop();
  assertKeysAbsent(door, [OPENAI_KEY, ANTHROPIC_KEY]);
  await fakes.openai.close();
  await fakes.anthropic.close();
});

test('a switch mid-task: fast → deep → fast, each applied at the next call, the conversation carried and thinking dropped', async () => {
  fakes.openai.enqueue(
    {
      thinking: ['openai reasoning'],
      toolCalls: [
        { id: 'call_sw1', name: 'switch-driver', input: { driver: 'bogus' } },
        { id: 'call_sw2', name: 'switch-driver', input: { driver: 'nokey' } },
        { id: 'call_sw3', name: 'switch-driver', input: { driver: 'deep' } },
        { id: 'call_echo', name: 'bash', input: { command: 'echo still-this-turn' } },
      ],
      usage: { input: 100, output: 10 },
    },
    { text: ['Back on ', 'fast.'], usage: { input: 300, output: 4 } },
  );
  fakes.anthropic.enqueue({
    thinking: ['anthropic thinking'],
    text: ['On deep.'],
    toolCalls: [{ id: 'toolu_back', name: 'switch-driver', input: { driver: 'fast' } }],
    usage: { input: 200, output: 8 },
  });
  const openaiBefore = fakes.openai.requests.length;
  const anthropicBefore = fakes.anthropic.requests.length;
  const task = taskOf(await send(door.url, 'switch around', {}, { returnImmediately: true }));
  const done = await waitForState(door.url, task.id, 'TASK_STATE_COMPLETED', 15_000);
  assert.equal(done.artifacts[0].parts[0].text, 'Back on fast.');

  const trace = readTrace(door.recordsDir).filter((r) => r.task_id === task.id);
  assert.deepEqual(
    trace.filter((r) => r.type === 'inference').map((r) => r.driver),
    ['fast', 'deep', 'fast'],
  );
  const control = trace.filter((r) => r.type.startsWith('control_')).map(({ ts: _ts, ...rest }) => rest);
  assert.deepEqual(control, [
    {
      type: 'control_refused',
      principal: 'agent',
      setting: 'inference.driver',
      value: 'bogus',
      reason: 'driver "bogus" is not one of fast, deep, nokey',
      task_id: task.id,
    },
    {
      type: 'control_refused',
      principal: 'agent',
      setting: 'inference.driver',
      value: 'nokey',
      reason: "choice 'nokey' cannot be used: its key variable MURMUR_TEST_UNSET_KEY (api_key_env) is not set",
      task_id: task.id,
    },
    { type: 'control_change', principal: 'agent', setting: 'inference.driver', from: 'fast', to: 'deep', task_id: task.id },
    { type: 'control_applied', principal: 'agent', setting: 'inference.driver', value: 'deep', task_id: task.id, turn: 2 },
    { type: 'control_change', principal: 'agent', setting: 'inference.driver', from: 'deep', to: 'fast', task_id: task.id },
    { type: 'control_applied', principal: 'agent', setting: 'inference.driver', value: 'fast', task_id: task.id, turn: 3 },
  ]);
  assert.ok(control.every((r) => !('token_id' in r)));

  // Deep's call: the whole conversation so far, the openai tool calls as tool_use/tool_result, no thinking block.
  const deepCall = fakes.anthropic.requests[anthropicBefore].body;
  assert.equal(fakes.anthropic.requests.length - anthropicBefore, 1);
  const assistant = deepCall.messages[1];
  assert.deepEqual(
    assistant.content.map((b: { type: string; id?: string }) => [b.type, b.id]),
    [
      ['tool_use', 'call_sw1'],
      ['tool_use', 'call_sw2'],
      ['tool_use', 'call_sw3'],
      ['tool_use', 'call_echo'],
    ],
  );
  const results = deepCall.messages[2].content;
  assert.deepEqual(
    results.map((b: { tool_use_id: string; is_error: boolean }) => [b.tool_use_id, b.is_error]),
    [
      ['call_sw1', true],
      ['call_sw2', true],
      ['call_sw3', false],
      ['call_echo', false],
    ],
  );
  assert.match(results[0].content, /driver "bogus" is not one of fast, deep, nokey/);
  assert.match(results[2].content, /inference\.driver: fast → deep \(anthropic, claude-fake\); the next inference call is served by deep/);
  assert.match(results[3].content, /still-this-turn/);
  assert.ok(!JSON.stringify(deepCall).includes('openai reasoning'), 'reasoning from another choice is dropped');

  // Back on fast: deep's text and tool call carried as an assistant message, its thinking dropped.
  const fastCall = fakes.openai.requests[openaiBefore + 1].body;
  assert.equal(fakes.openai.requests.length - openaiBefore, 2);
  const last = fastCall.messages.slice(-2);
  assert.equal(last[0].role, 'assistant');
  assert.equal(last[0].content, 'On deep.');
  assert.equal(last[0].tool_calls[0].id, 'toolu_back');
  assert.equal(last[1].role, 'tool');
  assert.ok(!JSON.stringify(fastCall).includes('anthropic thinking'), 'thinking from another choice is dropped');

  // The inventory offered switch-driver with the declared choices as its enum, and the description lists them.
  const tool = fakes.openai.requests[openaiBefore].body.tools.find((t: { function: { name: string } }) => t.function.name === 'switch-driver').function;
  assert.deepEqual(tool.parameters.properties.driver.enum, ['fast', 'deep', 'nokey']);
  assert.match(tool.description, /fast \(openai-compatible, fake-gpt\); deep \(anthropic, claude-fake\); nokey \(openai-compatible, fake-gpt\)/);
});

test('the switch is session-wide: the next task starts on the choice selected last', async () => {
  fakes.openai.enqueue({ toolCalls: [{ id: 'c1', name: 'switch-driver', input: { driver: 'deep' } }] });
  fakes.anthropic.enqueue({ text: ['deep answers'] }, { text: ['deep again'] });
  const first = taskOf(await send(door.url, 'go deep', {}, { returnImmediately: true }));
  await waitForState(door.url, first.id, 'TASK_STATE_COMPLETED', 10_000);
  const second = taskOf(await send(door.url, 'next', {}, { returnImmediately: true }));
  const done = await waitForState(door.url, second.id, 'TASK_STATE_COMPLETED', 10_000);
  assert.equal(done.artifacts[0].parts[0].text, 'deep again');
});

test('the launch refuses a starting choice whose key variable is unset, naming the variable', async () => {
  const dir = makeCapsule(driverManifest({ start: 'nokey', ...fakes }));
  const result = await runMur(['run', dir]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `mur: ${path.join(dir, 'murmur.yaml')}:\n  inference.driver: found "nokey" (its key variable MURMUR_TEST_UNSET_KEY (api_key_env) is not set); allowed: a choice whose key variable is set, or one that sends no key\n`,
  );
});

test('the launch refuses an undeclared starting choice and a base_url variable that is unset', async () => {
  const undeclaredDir = makeCapsule(driverManifest({ start: 'nosuch', ...fakes }));
  const undeclared = await runMur(['run', undeclaredDir]);
  assert.equal(undeclared.code, 2);
  assert.equal(
    undeclared.stderr,
    `mur: ${path.join(undeclaredDir, 'murmur.yaml')}:\n  inference.driver: found "nosuch"; allowed: a declared choice: fast, deep, nokey (inference.choices, or script with inference.script)\n`,
  );
  const unsetDir = makeCapsule(driverManifest({ start: 'fast', ...fakes }).replace(fakes.openai.baseUrl, `\${MURMUR_TEST_NO_SUCH_URL}`));
  const unset = await runMur(['run', unsetDir]);
  assert.equal(unset.code, 2);
  assert.equal(
    unset.stderr,
    `mur: ${path.join(unsetDir, 'murmur.yaml')}:\n  inference.choices.fast.base_url: found "\${MURMUR_TEST_NO_SUCH_URL}" (the environment variable MURMUR_TEST_NO_SUCH_URL is not set and has no default); allowed: variables that are set, or a default: \${MURMUR_TEST_NO_SUCH_URL:-<default>}\n`,
  );
});
