/**
 * The provider drivers on real doors against the fake providers (docs/drivers.md): a full task with parallel tool
 * calls through each driver, frames as the script driver's, usage in session-status and the inference records, the
 * transcript sent back (thinking with its signature to Anthropic), cancel closing the upstream socket, every failure
 * mode's task failure with retry where it should, and the key nowhere in MURMUR_HOME or the logs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { taskOf } from './support/assertions.js';
import { ANTHROPIC_KEY, driverManifest, exportKeys, OPENAI_KEY } from './support/driver-capsule.js';
import { type DoorProcess, makeCapsule, runDoor } from './support/door-process.js';
import { fakeSignature } from './support/fake-providers/anthropic-wire.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import type { FakeTurn } from './support/fake-providers/fake-turn.js';
import { send, waitForState } from './support/rpc.js';
import { frameOf, kindOf, sendStreamingStream } from './support/sse.js';
import { cancelTask, readTrace } from './support/tasks.js';
import { assertKeysAbsent } from './support/key-scan.js';

const TOOL_TURN: FakeTurn = {
  thinking: ['I will run ', 'two tools.'],
  text: ['Checking', '…'],
  toolCalls: [
    { id: 'call_echo1', name: 'bash', input: { command: 'echo hello-from-bash' } },
    { id: 'call_stat2', name: 'session-status', input: {} },
  ],
  usage: { input: 1200, output: 30, cached: 1000, cacheWrite: 50, reasoning: 12 },
};
const ANSWER_TURN: FakeTurn = { text: ['All ', 'done.'], usage: { input: 1500, output: 5, cached: 1200 } };

exportKeys();
const fakes = { openai: new FakeProvider('openai', { expectKey: OPENAI_KEY }), anthropic: new FakeProvider('anthropic', { expectKey: ANTHROPIC_KEY }) };
const doors: DoorProcess[] = [];
let fast: DoorProcess;
let deep: DoorProcess;

before(async () => {
  await fakes.openai.start();
  await fakes.anthropic.start();
  fast = await runDoor(makeCapsule(driverManifest({ start: 'fast', ...fakes })));
  deep = await runDoor(makeCapsule(driverManifest({ start: 'deep', ...fakes })));
  doors.push(fast, deep);
});

after(async () => {
  await Promise.all(doors.map((d) => d.stop()));
  // Every file the sessions wrote, and everything the doors printed: no key anywhere.
  for (const door of doors) assertKeysAbsent(door, [OPENAI_KEY, ANTHROPIC_KEY]);
  await fakes.openai.close();
  await fakes.anthropic.close();
});

describe('a full task with tool calls', () => {
  for (const [label, choice, fakeOf] of [
    ['openai-compatible', 'fast', () => fakes.openai],
    ['anthropic', 'deep', () => fakes.anthropic],
  ] as const) {
    test(`through the ${label} driver: frames, parallel tool calls, the transcript sent back, usage`, async () => {
      const fake = fakeOf();
      const door = choice === 'fast' ? fast : deep;
      const before = fake.requests.length;
      fake.enqueue(TOOL_TURN, ANSWER_TURN);
      const stream = await sendStreamingStream(door.url, 'run the tools', { activate: true });
      const events = await stream.waitForEnd(15_000);
      const frames = events.filter((e) => kindOf(e).startsWith('frame:')).map(frameOf);
      assert.deepEqual(
        frames.filter((f) => f.frame === 'thinking' || f.frame === 'text').map((f) => [f.frame, f.text]),
        [
          ['thinking', 'I will run '],
          ['thinking', 'two tools.'],
          ['text', 'Checking'],
          ['text', '…'],
          ['text', ''],
          ['text', 'All '],
          ['text', 'done.'],
          ['text', ''],
        ],
      );
      assert.deepEqual(
        frames.filter((f) => f.frame === 'tool-call-started').map((f) => [f.toolCallId, f.toolName]),
        [
          ['call_echo1', 'bash'],
          ['call_stat2', 'session-status'],
        ],
      );
      const final = events.at(-1)!.data.result.statusUpdate.status;
      assert.equal(final.state, 'TASK_STATE_COMPLETED');

      const [first, second] = fake.requests.slice(before);
      assert.equal(fake.requests.length - before, 2);
      assert.equal(first.body.stream, true);
      assert.ok(first.body.tools.some((t: { name?: string; function?: { name: string } }) => (t.name ?? t.function?.name) === 'switch-driver'));
      if (choice === 'fast') {
        assert.deepEqual(first.body.stream_options, { include_usage: true });
        assert.equal(first.body.messages[0].role, 'system');
        const sent = second.body.messages.slice(2);
        assert.equal(sent[0].role, 'assistant');
        assert.equal(sent[0].content, 'Checking…');
        assert.deepEqual(
          sent[0].tool_calls.map((c: { id: string; function: { name: string; arguments: string } }) => [
            c.id,
            c.function.name,
            JSON.parse(c.function.arguments),
          ]),
          [
            ['call_echo1', 'bash', { command: 'echo hello-from-bash' }],
            ['call_stat2', 'session-status', {}],
          ],
        );
        assert.deepEqual(
          sent.slice(1).map((m: { role: string; tool_call_id: string }) => [m.role, m.tool_call_id]),
          [
            ['tool', 'call_echo1'],
            ['tool', 'call_stat2'],
          ],
        );
        assert.match(sent[1].content, /hello-from-bash/);
        assert.ok(!JSON.stringify(second.body).includes('two tools.'), 'reasoning is not sent back');
      } else {
        assert.deepEqual(first.body.thinking, { type: 'enabled', budget_tokens: 1024 });
        assert.equal(typeof first.body.system, 'string');
        const [, assistant, results] = second.body.messages;
        assert.deepEqual(assistant.content.slice(0, 2), [
          { type: 'thinking', thinking: 'I will run two tools.', signature: fakeSignature('I will run two tools.') },
          { type: 'text', text: 'Checking…' },
        ]);
        assert.deepEqual(
          assistant.content.slice(2).map((b: { id: string; name: string; input: unknown }) => [b.id, b.name, b.input]),
          [
            ['call_echo1', 'bash', { command: 'echo hello-from-bash' }],
            ['call_stat2', 'session-status', {}],
          ],
        );
        assert.equal(results.role, 'user');
        assert.deepEqual(
          results.content.map((b: { type: string; tool_use_id: string; is_error: boolean }) => [b.type, b.tool_use_id, b.is_error]),
          [
            ['tool_result', 'call_echo1', false],
            ['tool_result', 'call_stat2', false],
          ],
        );
      }
      // session-status ran after the first call: its usage, and the serving choice's window.
      const statusResult = choice === 'fast' ? second.body.messages.at(-1).content : second.body.messages[2].content[1].content;
      const status = JSON.parse(statusResult.slice(statusResult.indexOf('{'), statusResult.lastIndexOf('}') + 1));
      assert.deepEqual(status.tokens, { input: 1200, output: 30, cached: 1000, cache_write: choice === 'deep' ? 50 : 'unknown', unreported_calls: 0 });
      if (choice === 'fast')
        assert.deepEqual(
          [status.context.window_tokens, status.context.budget_tokens, status.context.budget_basis],
          [32000, 30000, 'context_window_less_output_cap'],
        );

      const taskId = events[0].data.result.task.id;
      const inference = readTrace(door.recordsDir).filter((r) => r.type === 'inference' && r.task_id === taskId);
      assert.deepEqual(
        inference.map((r) => [r.driver, r.stop_reason, r.tool_calls, r.usage]),
        [
          // OpenAI-compatible: its reasoning tokens apart (completion_tokens_details); Anthropic reports none apart.
          [
            choice,
            'tool_use',
            2,
            choice === 'fast' ? { input: 1200, output: 30, cached: 1000, reasoning: 12 } : { input: 1200, output: 30, cached: 1000, cacheWrite: 50 },
          ],
          [
            choice,
            'end_turn',
            0,
            choice === 'fast' ? { input: 1500, output: 5, cached: 1200, reasoning: 0 } : { input: 1500, output: 5, cached: 1200, cacheWrite: 0 },
          ],
        ],
      );
      // Each record names the model the call was served by, as the choice declares it.
      assert.ok(
        inference.every((r) => typeof r.model === 'string' && r.model !== ''),
        JSON.stringify(inference.map((r) => r.model)),
      );
      // The call facts telemetry reads (docs/records.md): the choice's kind and cap, and the id and model the stream named.
      assert.deepEqual(
        inference.map((r) => [r.driver_kind, r.max_tokens, r.response_model]),
        inference.map((r) => [label, choice === 'fast' ? 2000 : 4096, r.model]),
      );
      for (const r of inference) assert.match(String(r.response_id), choice === 'fast' ? /^chatcmpl-fake\d+$/ : /^msg_fake\d+$/);
      assert.notEqual(inference[0].response_id, inference[1].response_id);
    });
  }
});

describe('cancel', () => {
  for (const [label, choice, fakeOf] of [
    ['openai-compatible', 'fast', () => fakes.openai],
    ['anthropic', 'deep', () => fakes.anthropic],
  ] as const) {
    test(`CancelTask closes the ${label} provider's socket within a bounded time`, async () => {
      const fake = fakeOf();
      const door = choice === 'fast' ? fast : deep;
      const before = fake.requests.length;
      fake.enqueue({ text: Array.from({ length: 200 }, (_, i) => `w${i} `), paceMs: 50 });
      const task = taskOf(await send(door.url, 'talk slowly', {}, { returnImmediately: true }));
      await fake.waitFor((r) => r.length > before && (r[before].eventsWritten ?? 0) >= 4);
      const canceledAt = Date.now();
      const answer = await cancelTask(door.url, task.id);
      assert.equal(answer.json.result.status.state, 'TASK_STATE_CANCELED');
      await fake.waitFor((r) => r[before].closedAt !== null, 2_000);
      const request = fake.requests[before];
      assert.equal(request.closedEarly, true);
      assert.ok(request.closedAt! - canceledAt < 1_000, `the socket closed ${request.closedAt! - canceledAt} ms after CancelTask`);
      assert.ok(request.eventsWritten < 100, 'the stream did not run to its end');
    });
  }
});

/** Sends a task and waits for it to end; the task as GetTask answers. */
async function runTask(door: DoorProcess, text: string, state: string, timeoutMs = 15_000) {
  const task = taskOf(await send(door.url, text, {}, { returnImmediately: true }));
  return waitForState(door.url, task.id, state, timeoutMs);
}

const failureText = (task: { status: { message: { parts: { text: string }[] } } }) => task.status.message.parts[0].text;

describe('failures: the documented task failure, with retry where it should', () => {
  test('429 with Retry-After is retried after the wait, and the task completes', async () => {
    const before = fakes.openai.requests.length;
    fakes.openai.enqueue({ status: 429, headers: { 'retry-after': '1' }, message: 'Rate limit reached for fake-gpt' }, ANSWER_TURN);
    const task = await runTask(fast, 'rate limited', 'TASK_STATE_COMPLETED');
    const [a, b] = fakes.openai.requests.slice(before);
    assert.ok(b.receivedAt - a.receivedAt >= 950, `the retry waited ${b.receivedAt - a.receivedAt} ms`);
    const retry = readTrace(fast.recordsDir).filter((r) => r.type === 'inference_retry' && r.task_id === task.id);
    assert.deepEqual(
      retry.map((r) => [r.driver, r.attempt, r.delay_ms, r.reason]),
      [['fast', 1, 1000, 'HTTP 429: Rate limit reached for fake-gpt']],
    );
  });

  test('500 three times fails the task after 3 attempts', async () => {
    const before = fakes.openai.requests.length;
    fakes.openai.enqueue(
      { status: 500, message: 'The server had an error' },
      { status: 500, message: 'The server had an error' },
      { status: 500, message: 'The server had an error' },
    );
    const task = await runTask(fast, 'server errors', 'TASK_STATE_FAILED');
    assert.equal(failureText(task), 'driver invocation failed: fast: HTTP 500 after 3 attempts: The server had an error');
    assert.equal(fakes.openai.requests.length - before, 3);
  });

  test('529 overloaded from Anthropic is retried', async () => {
    fakes.anthropic.enqueue({ status: 529, message: 'Overloaded' }, ANSWER_TURN);
    const task = await runTask(deep, 'overloaded', 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts?.[0]?.parts?.[0]?.text ?? task.status.message?.parts?.[0]?.text, 'All done.');
  });

  test('an overloaded_error event before anything streamed is retried, on both wires', async () => {
    fakes.anthropic.enqueue({ ...ANSWER_TURN, fault: { kind: 'error', afterEvents: 1 } }, ANSWER_TURN);
    const viaAnthropic = await runTask(deep, 'overloaded midstream', 'TASK_STATE_COMPLETED');
    assert.equal(viaAnthropic.artifacts?.[0]?.parts?.[0]?.text, 'All done.');
    fakes.openai.enqueue({ ...ANSWER_TURN, fault: { kind: 'error', afterEvents: 0 } }, ANSWER_TURN);
    const viaOpenAi = await runTask(fast, 'overloaded midstream', 'TASK_STATE_COMPLETED');
    assert.equal(viaOpenAi.artifacts?.[0]?.parts?.[0]?.text, 'All done.');
  });

  test('401 is not retried, and the key the provider quotes back is redacted', async () => {
    const before = fakes.openai.requests.length;
    fakes.openai.enqueue({
      status: 401,
      message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    });
    const task = await runTask(fast, 'bad key', 'TASK_STATE_FAILED');
    assert.equal(
      failureText(task),
      'driver invocation failed: fast: HTTP 401: Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.',
    );
    assert.equal(fakes.openai.requests.length - before, 1);
  });

  for (const [label, door, fakeOf, afterEvents] of [
    ['openai-compatible', () => fast, () => fakes.openai, 2],
    ['anthropic', () => deep, () => fakes.anthropic, 4],
  ] as const) {
    test(`${label}: a malformed chunk fails the task, not retried`, async () => {
      const before = fakeOf().requests.length;
      fakeOf().enqueue({ text: ['a', 'b', 'c'], fault: { kind: 'malformed', afterEvents } });
      const task = await runTask(door(), 'malformed', 'TASK_STATE_FAILED');
      assert.equal(
        failureText(task),
        `driver invocation failed: ${door() === fast ? 'fast' : 'deep'}: the provider's stream could not be read: event ${afterEvents + 1} is not JSON`,
      );
      assert.equal(fakeOf().requests.length - before, 1);
    });

    test(`${label}: an in-stream error event after a streamed chunk fails the task with the provider's type and message, not retried`, async () => {
      const before = fakeOf().requests.length;
      fakeOf().enqueue({ text: ['a', 'b', 'c'], fault: { kind: 'error', afterEvents: afterEvents + 1 } });
      const task = await runTask(door(), 'stream error', 'TASK_STATE_FAILED');
      assert.equal(failureText(task), `driver invocation failed: ${door() === fast ? 'fast' : 'deep'}: overloaded_error: Overloaded`);
      assert.equal(fakeOf().requests.length - before, 1);
    });

    test(`${label}: a stall after a streamed chunk fails the task without a retry, and closes the socket`, async () => {
      const before = fakeOf().requests.length;
      fakeOf().enqueue({ text: ['a', 'b', 'c'], fault: { kind: 'stall', afterEvents: afterEvents + 1 } });
      const task = await runTask(door(), 'stall', 'TASK_STATE_FAILED');
      assert.equal(failureText(task), `driver invocation failed: ${door() === fast ? 'fast' : 'deep'}: the provider sent nothing for 1 s`);
      assert.equal(fakeOf().requests.length - before, 1);
      await fakeOf().waitFor((r) => r[before].closedAt !== null, 2_000);
    });

    test(`${label}: a disconnect after a streamed chunk fails the task without a retry`, async () => {
      const before = fakeOf().requests.length;
      fakeOf().enqueue({ text: ['a', 'b', 'c'], fault: { kind: 'disconnect', afterEvents: afterEvents + 1 } });
      const task = await runTask(door(), 'disconnect', 'TASK_STATE_FAILED');
      assert.match(
        failureText(task),
        new RegExp(`^driver invocation failed: ${door() === fast ? 'fast' : 'deep'}: the provider closed the stream before it finished`),
      );
      assert.equal(fakeOf().requests.length - before, 1);
    });
  }

  test('a stall and a disconnect before any chunk are retried, and the task completes', async () => {
    const before = fakes.openai.requests.length;
    fakes.openai.enqueue(
      { text: ['x'], fault: { kind: 'stall', afterEvents: 1 } },
      { text: ['x'], fault: { kind: 'disconnect', afterEvents: 1 } },
      ANSWER_TURN,
    );
    const task = await runTask(fast, 'flaky', 'TASK_STATE_COMPLETED');
    assert.equal(fakes.openai.requests.length - before, 3);
    const reasons = readTrace(fast.recordsDir)
      .filter((r) => r.type === 'inference_retry' && r.task_id === task.id)
      .map((r) => r.reason);
    assert.equal(reasons.length, 2);
    assert.equal(reasons[0], 'the provider sent nothing for 1 s');
    assert.match(String(reasons[1]), /^the provider closed the stream before it finished/);
  });

  test('a provider that cannot be reached is retried, then fails the task naming its origin', async () => {
    const dead = new FakeProvider('openai');
    await dead.start();
    const baseUrl = dead.baseUrl;
    await dead.close();
    const door = await runDoor(
      makeCapsule(
        driverManifest({ start: 'fast', ...fakes, name: 'unreachable' }).replace(
          `base_url: ${fakes.openai.baseUrl}\n      model: fake-gpt\n      api_key_env: MURMUR_TEST_OPENAI_KEY`,
          `base_url: ${baseUrl}\n      model: fake-gpt\n      api_key_env: MURMUR_TEST_OPENAI_KEY\n      max_retries: 1`,
        ),
      ),
    );
    doors.push(door);
    const task = await runTask(door, 'anyone there', 'TASK_STATE_FAILED');
    assert.equal(
      failureText(task),
      `driver invocation failed: fast: the provider could not be reached at ${new URL(baseUrl).origin}: ECONNREFUSED (after 2 attempts)`,
    );
  });
});

describe('provider faults where code and docs once disagreed (docs/drivers.md, "Failures")', () => {
  const statusLimit = 'driver invocation failed: fast: '.length + 1_001;

  test('a call refused with a 400 writes its inference record: stop_reason failed, the failure, usage unreported', async () => {
    const before = fakes.openai.requests.length;
    fakes.openai.enqueue({ status: 400, message: "This model's maximum context length is 32000 tokens" });
    const task = await runTask(fast, 'too long', 'TASK_STATE_FAILED');
    assert.equal(failureText(task), "driver invocation failed: fast: HTTP 400: This model's maximum context length is 32000 tokens");
    assert.equal(fakes.openai.requests.length - before, 1, 'a 400 is not retried');
    // agent-loop.md: "Every call writes one `inference` trace record" — a failed one too.
    const records = readTrace(fast.recordsDir).filter((r) => r.type === 'inference' && r.task_id === task.id);
    assert.deepEqual(
      records.map((r) => [r.turn, r.driver, r.model, r.stop_reason, r.failure, r.usage, r.tool_calls]),
      [[1, 'fast', 'fake-gpt', 'failed', "fast: HTTP 400: This model's maximum context length is 32000 tokens", 'unreported', 0]],
    );
  });

  test("a provider's long words are cut: 500 characters each, the status message's failure at 1,000", async () => {
    // drivers.md: "The provider's own words — its error message and error type, a refusal's text, a tool call's id and
    // name — are each cut at 500 characters (then `…`), and the whole `<what>` at 1,000 characters".
    fakes.openai.enqueue({ status: 400, message: 'm'.repeat(2_100) });
    const http = failureText(await runTask(fast, 'long message', 'TASK_STATE_FAILED'));
    assert.equal(http, `driver invocation failed: fast: HTTP 400: ${'m'.repeat(500)}…`);

    fakes.openai.enqueue({ text: ['a'], fault: { kind: 'error', afterEvents: 2, errorType: 't'.repeat(2_000), errorMessage: 'e'.repeat(2_000) } });
    const stream = failureText(await runTask(fast, 'long error type', 'TASK_STATE_FAILED'));
    // Type and message are 500 characters and `…` each; together past 1,000, so the whole is cut again.
    assert.equal(stream, `driver invocation failed: fast: ${'t'.repeat(500)}…: ${'e'.repeat(497)}…`);
    assert.equal(stream.length, statusLimit);

    fakes.openai.enqueue({ refusal: 'r'.repeat(2_100) });
    const refusal = failureText(await runTask(fast, 'refuse at length', 'TASK_STATE_FAILED'));
    assert.equal(refusal, `the model declined to answer: ${'r'.repeat(500)}…`);

    // Arguments that are a JSON array, not an object, under a tool name of 2,000 characters.
    const name = 'n'.repeat(2_000);
    fakes.openai.enqueue({ toolCalls: [{ id: 'call_long', name, input: [] as unknown as Record<string, unknown> }] });
    const args = failureText(await runTask(fast, 'long tool name', 'TASK_STATE_FAILED'));
    assert.equal(args, `driver invocation failed: fast: tool call call_long (${'n'.repeat(500)}…): its arguments are not a JSON object`);
  });

  test('an OpenAI-compatible server_error chunk before anything streamed is retried; an invalid_request_error is not', async () => {
    // drivers.md: "`overloaded_error`, `api_error`, `server_error` …: yes, if no chunk was streamed yet; any other type: no".
    let before = fakes.openai.requests.length;
    fakes.openai.enqueue({ ...ANSWER_TURN, fault: { kind: 'error', afterEvents: 0, errorType: 'server_error' } }, ANSWER_TURN);
    const retried = await runTask(fast, 'server error chunk', 'TASK_STATE_COMPLETED');
    assert.equal(retried.artifacts?.[0]?.parts?.[0]?.text, 'All done.');
    assert.equal(fakes.openai.requests.length - before, 2);
    before = fakes.openai.requests.length;
    fakes.openai.enqueue({ ...ANSWER_TURN, fault: { kind: 'error', afterEvents: 0, errorType: 'invalid_request_error' } });
    const failed = await runTask(fast, 'invalid request chunk', 'TASK_STATE_FAILED');
    assert.equal(failureText(failed), 'driver invocation failed: fast: invalid_request_error: The stream failed');
    assert.equal(fakes.openai.requests.length - before, 1);
  });

  test('an Anthropic text_delta for a block that never started fails the call, named, not retried', async () => {
    const before = fakes.anthropic.requests.length;
    // message_start, ping, then the orphan delta (event 3) before the text block opens.
    fakes.anthropic.enqueue({ text: ['a', 'b'], fault: { kind: 'orphan-delta', afterEvents: 2 } });
    const task = await runTask(deep, 'orphan delta', 'TASK_STATE_FAILED');
    assert.equal(
      failureText(task),
      "driver invocation failed: deep: the provider's stream could not be read: event 3 is a delta for content block 7, which never started",
    );
    assert.equal(fakes.anthropic.requests.length - before, 1);
  });

  test('an Anthropic stream with an unknown event, an unknown delta and a text_delta with no text completes: they are ignored', async () => {
    // drivers.md: "unknown events and deltas | ignored, as Anthropic's versioning asks"; a delta for a block that
    // started is read by its type, and one with no text adds nothing (only a block that never started fails, above).
    const before = fakes.anthropic.requests.length;
    // message_start, ping, the text block's start, then the unknown parts, then the text deltas and the rest.
    fakes.anthropic.enqueue({ text: ['a', 'b'], fault: { kind: 'unknown-parts', afterEvents: 3 } });
    const task = await runTask(deep, 'unknown parts', 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts?.[0]?.parts?.[0]?.text, 'ab');
    assert.equal(fakes.anthropic.requests.length - before, 1, 'nothing to retry');
  });

  test("the content filter's message is drivers.md's, with a plain apostrophe", async () => {
    fakes.openai.enqueue({ text: ['Once upon'], stop: 'filter' });
    const task = await runTask(fast, 'filtered', 'TASK_STATE_FAILED');
    assert.equal(failureText(task), "the provider's content filter stopped the reply");
  });

  for (const [label, door, fakeOf, choice] of [
    ['openai-compatible', () => fast, () => fakes.openai, 'fast'],
    ['anthropic', () => deep, () => fakes.anthropic, 'deep'],
  ] as const) {
    test(`${label}: an event that is JSON but no object is "not an object"`, async () => {
      fakeOf().enqueue({ text: ['a'], fault: { kind: 'not-object', afterEvents: 1 } });
      const task = await runTask(door(), 'not an object', 'TASK_STATE_FAILED');
      assert.equal(failureText(task), `driver invocation failed: ${choice}: the provider's stream could not be read: event 2 is not an object`);
    });
  }
});
