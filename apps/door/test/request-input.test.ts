/**
 * Asking for input from any driver (docs/agent-loop.md, "Asking for input"): the request-input tool on the script
 * driver and on the fake OpenAI-compatible and Anthropic providers, its grant, the reply as its result, and the input
 * timeout — its frames and ids on the stream, the failure the model reads, the task going on, a single capsule freed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { driverManifest, fakeProviderPair } from './support/driver-capsule.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { send } from './support/rpc.js';
import { INPUT_WAIT_START, type SseReader, taskEventLabels, watchSession } from './support/sse.js';
import { readTrace } from './support/tasks.js';

const add = (base: string, n: number) => (BigInt(base) + BigInt(n)).toString();

const SCRIPT = `
rules:
  - match: '^ask tool'
    turns:
      - tools:
          - tool: request-input
            input: { prompt: "Which branch?" }
        answer: "got {{tool.stdout}} ({{tool.content}})"
  - match: '^ask script'
    turns:
      - ask: "Which colour?"
      - answer: "after: {{reply}}{{continuation}}"
default:
  turns:
    - answer: plain
`;

function manifest(opts: { grant: boolean; timeoutSecs?: number; acceptance?: 'single' | 'queue' }): string {
  return [
    'name: asker',
    'version: 0.1.0',
    'lifecycle:',
    `  task_acceptance: ${opts.acceptance ?? 'queue'}`,
    ...(opts.timeoutSecs !== undefined ? [`  input_timeout_secs: ${opts.timeoutSecs}`] : []),
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    ...(opts.grant ? ['capabilities:', '  request_input: true'] : []),
    '',
  ].join('\n');
}

const doors: DoorProcess[] = [];
const watchers: SseReader[] = [];
after(async () => {
  for (const w of watchers) w.abort();
  await Promise.all(doors.map((d) => d.stop()));
});
async function door(text: string, script = SCRIPT): Promise<DoorProcess> {
  const d = await runDoor(makeCapsule(text, script));
  doors.push(d);
  return d;
}
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
const answerText = (task: any): string => task.artifacts?.[0]?.parts?.[0]?.text ?? '';

describe('request-input on the script driver', () => {
  test('the grant is the tool’s existence: without it, absent and refused naming the declaration', async () => {
    const d = await door(manifest({ grant: false }));
    const task = taskOf(await send(d.url, 'ask tool'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(
      answerText(task),
      "got  (tool 'request-input' does not exist in this capsule: it is provided only when the manifest declares capabilities.request_input: true)",
    );
    assert.deepEqual(readTrace(d.recordsDir).find((r) => r.type === 'session_start')?.tools_declared, ['session-status']);
  });

  test('the model asks, the task waits in INPUT_REQUIRED with the prompt, and the reply is the tool’s result', async () => {
    const d = await door(manifest({ grant: true }));
    const watcher = await watchSession(d.url);
    watchers.push(watcher);
    assert.deepEqual(readTrace(d.recordsDir).find((r) => r.type === 'session_start')?.tools_declared, ['session-status', 'request-input']);
    const waiting = taskOf(await send(d.url, 'ask tool'));
    assert.equal(waiting.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(answerText(waiting), 'Which branch?', 'the prompt artifact');
    const done = taskOf(await send(d.url, 'main', { taskId: waiting.id, contextId: waiting.contextId }));
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(done));
    assert.equal(answerText(done), 'got main (<untrusted-content source=tool:request-input>\nmain\n</untrusted-content>)');
    assert.deepEqual(await taskEventLabels(watcher, waiting.id), [
      ['SUBMITTED', null],
      ['WORKING:inference turn 1', '0'],
      ['started:request-input', '1'],
      ['INPUT_REQUIRED:Which branch?', INPUT_WAIT_START],
      ['WORKING:resumed', add(INPUT_WAIT_START, 1)],
      ['artifact:request-input', '1'],
      ['WORKING:inference turn 2', '2'],
      ['text', '3'],
      ['update:response', '3'],
      ['COMPLETED:task completed', '4'],
    ]);
  });

  test('the input timeout: WORKING input-timeout on the input-wait counter, the tool fails, the task goes on; a single capsule is free again', async () => {
    const d = await door(manifest({ grant: true, timeoutSecs: 1, acceptance: 'single' }));
    const watcher = await watchSession(d.url);
    watchers.push(watcher);
    const waiting = taskOf(await send(d.url, 'ask tool'));
    assert.equal(waiting.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const busy = taskOf(await send(d.url, 'another'));
    assert.equal(busy.status.state, 'TASK_STATE_REJECTED', 'a waiting task holds a single capsule');
    const events = await taskEventLabels(watcher, waiting.id);
    assert.deepEqual(events, [
      ['SUBMITTED', null],
      ['WORKING:inference turn 1', '0'],
      ['started:request-input', '1'],
      ['INPUT_REQUIRED:Which branch?', INPUT_WAIT_START],
      ['WORKING:input-timeout', add(INPUT_WAIT_START, 1)],
      ['artifact:request-input:error', '1'],
      ['WORKING:inference turn 2', '2'],
      ['text', '3'],
      ['update:response', '3'],
      ['COMPLETED:task completed', '4'],
    ]);
    const trace = readTrace(d.recordsDir);
    const timeout = trace.find((r) => r.type === 'task_input_timeout');
    assert.equal(timeout?.task_id, waiting.id);
    assert.equal(timeout?.waited_secs, 1);
    const call = trace.find((r) => r.type === 'tool_call' && r.tool === 'request-input');
    assert.equal(call?.status, 'error');
    assert.equal(
      call?.output,
      '<untrusted-content source=tool:request-input>\nno reply came within 1s: the question was withdrawn; go on without the answer\n</untrusted-content>',
    );
    const late = await send(d.url, 'too late', { taskId: waiting.id, contextId: waiting.contextId });
    assert.ok(late.json?.error, `a reply after the timeout is refused: ${late.text}`);
    assert.equal(taskOf(await send(d.url, 'hello')).status.state, 'TASK_STATE_COMPLETED', 'the capsule takes work again');
  });

  test('the script driver’s ask is bounded the same way: the model reads the runtime’s sentence and goes on', async () => {
    const d = await door(manifest({ grant: false, timeoutSecs: 1 }));
    const waiting = taskOf(await send(d.url, 'ask script'));
    assert.equal(waiting.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const deadline = Date.now() + 8000;
    let row = waiting;
    while (Date.now() < deadline && row.status.state !== 'TASK_STATE_COMPLETED') {
      await new Promise((r) => setTimeout(r, 100));
      row = (
        (await (
          await fetch(`${d.url}/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: waiting.id } }),
          })
        ).json()) as { result: typeof row }
      ).result;
    }
    assert.equal(row.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(answerText(row), 'after: [request-input] no reply came within 1s: the question was withdrawn; go on without the answer');
  });
});

describe('request-input on the provider drivers', () => {
  const fakes = fakeProviderPair();

  for (const [label, choice, fakeOf] of [
    ['openai-compatible', 'fast', () => fakes.openai],
    ['anthropic', 'deep', () => fakes.anthropic],
  ] as const) {
    test(`${label}: the model’s request-input call pauses the task; the reply reaches the next call as the tool result`, async () => {
      const fake = fakeOf();
      const text = driverManifest({ start: choice, ...fakes, name: `asker-${choice}` })
        .replace('  task_acceptance: queue', '  task_acceptance: queue\n  input_timeout_secs: 30')
        .replace('capabilities:\n', 'capabilities:\n  request_input: true\n');
      const d = await runDoor(makeCapsule(text));
      doors.push(d);
      fake.enqueue(
        { toolCalls: [{ id: 'call_ask1', name: 'request-input', input: { prompt: 'Ship it?' } }], usage: { input: 100, output: 10 } },
        { text: ['Shipping.'], usage: { input: 150, output: 3 } },
      );
      const waiting = taskOf(await send(d.url, 'release'));
      assert.equal(waiting.status.state, 'TASK_STATE_INPUT_REQUIRED');
      assert.equal(answerText(waiting), 'Ship it?', 'the prompt artifact');
      const done = taskOf(await send(d.url, 'yes, ship', { taskId: waiting.id, contextId: waiting.contextId }));
      assert.equal(done.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(done));
      assert.equal(answerText(done), 'Shipping.');
      const sent = JSON.stringify(fake.requests.at(-1)?.body);
      assert.match(sent, /yes, ship/, 'the reply went back to the model as the tool result');
      assert.match(sent, /call_ask1/);
    });
  }
});
