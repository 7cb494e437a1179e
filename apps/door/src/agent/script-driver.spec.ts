import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConversationMessage } from './conversation.js';
import type { DriverChunk, DriverRequest, ToolOutcome } from './driver.js';
import { renderToolInput, ScriptTaskDriver } from './script-driver.js';
import { type Script, scriptSchema } from './script.schema.js';

const script = (value: unknown): Script => scriptSchema.parse(value);
const task: ConversationMessage = { role: 'user', origin: 'task', content: [{ type: 'text', text: 'x' }] };
const request = (turn: number, messages: ConversationMessage[] = [task], signal = new AbortController().signal): DriverRequest => ({
  turn,
  system: 'sys',
  messages,
  tools: [],
  signal,
});
const outcome = (stdout: string): ToolOutcome => ({ name: 'bash', stdout, stderr: '', exitCode: 0, workId: null, isError: false, content: stdout });

test('the first matching rule plays; chunks come out in order with their kind; an answer ends the turn', async () => {
  const driver = new ScriptTaskDriver(
    script({ rules: [{ match: '^hi', turns: [{ thinking: ['hm'], text: ['a', 'b'], answer: 'ab' }] }], default: { turns: [{ answer: 'no' }] } }),
    'hi there',
  );
  const chunks: DriverChunk[] = [];
  const response = await driver.infer(request(1), (c) => chunks.push(c));
  assert.deepEqual(response, { text: 'ab', thinking: [{ text: 'hm' }], toolCalls: [], stop: { kind: 'end_turn' }, usage: null });
  assert.deepEqual(chunks, [
    { kind: 'thinking', text: 'hm' },
    { kind: 'text', text: 'a' },
    { kind: 'text', text: 'b' },
  ]);
});

test('a turn with tools and an ending plays as two calls; the second reads the tool results from the transcript', async () => {
  const driver = new ScriptTaskDriver(
    script({ default: { turns: [{ tools: [{ tool: 'bash', input: { command: 'echo {{task.text}}' } }], answer: 'got {{tool.stdout}}' }] } }),
    'x',
  );
  const first = await driver.infer(request(1), () => undefined);
  assert.deepEqual(first.toolCalls, [{ id: 'call_1', name: 'bash', input: { command: 'echo x' } }]);
  assert.deepEqual(first.stop, { kind: 'tool_use' });
  const transcript: ConversationMessage[] = [
    task,
    { role: 'assistant', text: '', thinking: [], toolCalls: first.toolCalls },
    { role: 'tool', results: [{ toolCallId: 'call_1', name: 'bash', content: 'x', isError: false, outcome: outcome('x\n') }] },
  ];
  const second = await driver.infer(request(2, transcript), () => undefined);
  assert.equal(second.text, 'got x');
  assert.deepEqual(second.stop, { kind: 'end_turn' });
});

test('ask stops for input; the reply, a user message of the transcript, reaches the next turn’s templates', async () => {
  const driver = new ScriptTaskDriver(script({ default: { turns: [{ ask: 'which?' }, { answer: 'took {{reply}}' }] } }), 'deploy');
  assert.deepEqual((await driver.infer(request(1), () => undefined)).stop, { kind: 'input_required', prompt: 'which?' });
  const transcript: ConversationMessage[] = [
    task,
    { role: 'assistant', text: '', thinking: [], toolCalls: [] },
    { role: 'user', origin: 'reply', content: [{ type: 'text', text: 'main' }] },
  ];
  assert.equal((await driver.infer(request(2, transcript), () => undefined)).text, 'took main');
});

test('a turn declares its usage, as a provider would report it', async () => {
  const driver = new ScriptTaskDriver(script({ default: { turns: [{ answer: 'ok', usage: { input: 120, output: 7, cached: 100, cache_write: 20 } }] } }), 'x');
  assert.deepEqual((await driver.infer(request(1), () => undefined)).usage, { input: 120, output: 7, cached: 100, cacheWrite: 20 });
});

test('fail gives up with its message; a chunks-only turn before the last pauses the turn', async () => {
  const failing = new ScriptTaskDriver(script({ default: { turns: [{ fail: 'no way' }] } }), 'x');
  assert.deepEqual((await failing.infer(request(1), () => undefined)).stop, { kind: 'error', message: 'no way' });
  const pausing = new ScriptTaskDriver(script({ default: { turns: [{ text: ['a'] }, { text: ['b'] }] } }), 'x');
  assert.deepEqual((await pausing.infer(request(1), () => undefined)).stop, { kind: 'pause_turn' });
  const last = await pausing.infer(request(2), () => undefined);
  assert.deepEqual([last.text, last.stop], ['b', { kind: 'end_turn' }]);
});

test('an aborted signal ends a sleeping call at once', async () => {
  const abort = new AbortController();
  const driver = new ScriptTaskDriver(script({ default: { turns: [{ sleep_ms: 60_000, answer: 'late' }] } }), 'x');
  const call = driver.infer(request(1, [task], abort.signal), () => undefined);
  abort.abort();
  await assert.rejects(call);
});

test("a template inside a tool's command is one quoted shell word; elsewhere it is the value as it is", () => {
  assert.deepEqual(
    renderToolInput(
      { command: 'echo {{reply}}', args: ['{{reply}}'], nested: { text: '"{{reply}}"' } },
      { taskText: '', match: null, reply: `a'b"c`, tool: null },
    ),
    {
      command: `echo 'a'\\''b"c'`,
      args: [`a'b"c`],
      nested: { text: `"a'b"c"` },
    },
  );
});
