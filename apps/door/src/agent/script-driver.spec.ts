import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DriverChunk, DriverRequest, ToolOutcome } from './driver.js';
import { ScriptTaskDriver } from './script-driver.js';
import { type Script, scriptSchema } from './script.schema.js';

const script = (value: unknown): Script => scriptSchema.parse(value);
const request = (turn: number, extra: Partial<DriverRequest> = {}): DriverRequest => ({ turn, toolResults: [], reply: null, signal: new AbortController().signal, ...extra });
const outcome = (stdout: string): ToolOutcome => ({ name: 'bash', stdout, stderr: '', exitCode: 0, workId: null, isError: false, content: stdout });

test('the first matching rule plays; chunks come out in order with their kind', async () => {
  const driver = new ScriptTaskDriver(
    script({ rules: [{ match: '^hi', turns: [{ thinking: ['hm'], text: ['a', 'b'], answer: 'ab' }] }], default: { turns: [{ answer: 'no' }] } }),
    'hi there',
  );
  const chunks: DriverChunk[] = [];
  assert.deepEqual(await driver.infer(request(1), (c) => chunks.push(c)), { kind: 'answer', text: 'ab' });
  assert.deepEqual(chunks, [
    { kind: 'thinking', text: 'hm' },
    { kind: 'text', text: 'a' },
    { kind: 'text', text: 'b' },
  ]);
});

test('a turn with tools and an ending plays as two inference calls, the second seeing the tools’ results', async () => {
  const driver = new ScriptTaskDriver(
    script({ default: { turns: [{ tools: [{ tool: 'bash', input: { command: 'echo {{task.text}}' } }], answer: 'got {{tool.stdout}}' }] } }),
    'x',
  );
  const first = await driver.infer(request(1), () => undefined);
  assert.deepEqual(first, { kind: 'tools', calls: [{ id: 'call_1', name: 'bash', input: { command: 'echo x' } }] });
  assert.deepEqual(await driver.infer(request(2, { toolResults: [outcome('x\n')] }), () => undefined), { kind: 'answer', text: 'got x' });
});

test('ask, then the reply reaches the next turn’s templates', async () => {
  const driver = new ScriptTaskDriver(script({ default: { turns: [{ ask: 'which?' }, { answer: 'took {{reply}}' }] } }), 'deploy');
  assert.deepEqual(await driver.infer(request(1), () => undefined), { kind: 'ask', prompt: 'which?' });
  assert.deepEqual(await driver.infer(request(2, { reply: 'main' }), () => undefined), { kind: 'answer', text: 'took main' });
});

test('an aborted signal ends a paced or sleeping call at once', async () => {
  const abort = new AbortController();
  const driver = new ScriptTaskDriver(script({ default: { turns: [{ sleep_ms: 60_000, answer: 'late' }] } }), 'x');
  const call = driver.infer(request(1, { signal: abort.signal }), () => undefined);
  abort.abort();
  await assert.rejects(call);
});
