/**
 * The fake providers cannot drift from the real wire: the official `openai` and `@anthropic-ai/sdk` clients parse
 * every scripted transcript the door's tests use — text, thinking, parallel tool calls with their arguments in
 * pieces, usage with cached tokens — and report every failure mode as the real APIs' failures; the Responses wire
 * Codex speaks too, and the rate-limit headers from which the harnesses report their windows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { fakeSignature } from './support/fake-providers/anthropic-wire.js';
import { FakeProvider } from './support/fake-providers/fake-provider.js';
import type { FakeTurn } from './support/fake-providers/fake-turn.js';
import { anthropicWindowHeaders, codexWindowHeaders } from './support/harness-model.js';

const FULL: FakeTurn = {
  thinking: ['Two tools ', 'at once.'],
  text: ['Let me ', 'check.'],
  toolCalls: [
    { id: 'call_a1', name: 'bash', input: { command: 'echo one' } },
    { id: 'call_b2', name: 'session-status', input: {} },
  ],
  usage: { input: 1200, output: 40, cached: 1000, cacheWrite: 100 },
};

const TEXT: FakeTurn = { text: ['Hel', 'lo ', 'there'], usage: { input: 10, output: 3 } };

describe('the official openai client reads the fake openai-compatible provider', () => {
  let fake: FakeProvider;
  let client: OpenAI;
  before(async () => {
    fake = await new FakeProvider('openai').start();
    client = new OpenAI({ baseURL: fake.baseUrl, apiKey: 'sk-fidelity', maxRetries: 0 });
  });
  after(() => fake.close());

  const request = { model: 'fake-gpt', messages: [{ role: 'user' as const, content: 'hi' }], stream_options: { include_usage: true } };

  test('text, reasoning, parallel tool calls and usage assemble into one completion', async () => {
    fake.enqueue(FULL);
    const stream = client.chat.completions.stream(request);
    const reasoning: string[] = [];
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) reasoning.push(delta.reasoning_content);
    });
    const done = await stream.finalChatCompletion();
    const message = done.choices[0].message;
    assert.equal(message.content, 'Let me check.');
    assert.deepEqual(reasoning, ['Two tools ', 'at once.']);
    assert.equal(done.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(
      message.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : null)),
      [
        ['call_a1', 'bash', { command: 'echo one' }],
        ['call_b2', 'session-status', {}],
      ],
    );
    assert.equal(done.usage?.prompt_tokens, 1200);
    assert.equal(done.usage?.completion_tokens, 40);
    assert.equal(done.usage?.prompt_tokens_details?.cached_tokens, 1000);
    assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-fidelity');
  });

  test('a plain text answer, chunk by chunk, ends with [DONE]', async () => {
    fake.enqueue(TEXT);
    const texts: string[] = [];
    for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
      if (chunk.choices[0]?.delta.content) texts.push(chunk.choices[0].delta.content);
    }
    assert.deepEqual(texts, ['Hel', 'lo ', 'there']);
  });

  test('429 with Retry-After is a RateLimitError the client retries after the wait', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '1' }, message: 'Rate limit reached' });
    await assert.rejects(
      client.chat.completions.create({ ...request, stream: true }),
      (e: unknown) => e instanceof OpenAI.RateLimitError && /Rate limit reached/.test(e.message),
    );
    fake.enqueue({ status: 429, headers: { 'retry-after': '1' } }, TEXT);
    const retrying = new OpenAI({ baseURL: fake.baseUrl, apiKey: 'k', maxRetries: 1 });
    const started = Date.now();
    const done = await retrying.chat.completions.stream(request).finalChatCompletion();
    assert.equal(done.choices[0].message.content, 'Hello there');
    assert.ok(Date.now() - started >= 900, 'the client waited for Retry-After');
  });

  test('500 is an InternalServerError', async () => {
    fake.enqueue({ status: 500, message: 'The server had an error' });
    await assert.rejects(
      client.chat.completions.create({ ...request, stream: true }),
      (e: unknown) => e instanceof OpenAI.InternalServerError && e.status === 500,
    );
  });

  test('a malformed chunk breaks the stream', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'malformed', afterEvents: 2 } });
    await assert.rejects(client.chat.completions.stream(request).finalChatCompletion());
  });

  test('an in-stream error chunk is an APIError carrying the provider’s message', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'error', afterEvents: 2 } });
    await assert.rejects(
      client.chat.completions.stream(request).finalChatCompletion(),
      (e: unknown) => e instanceof OpenAI.APIError && /Overloaded/.test(e.message),
    );
  });

  test('a disconnect mid-stream breaks it', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'disconnect', afterEvents: 2 } });
    await assert.rejects(client.chat.completions.stream(request).finalChatCompletion());
  });

  test('a stall mid-stream leaves the client waiting until it aborts, and the abort closes the socket', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'stall', afterEvents: 2 } });
    const controller = new AbortController();
    const stream = client.chat.completions.stream(request, { signal: controller.signal });
    const texts: string[] = [];
    stream.on('content', (delta) => texts.push(delta));
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(stream.finalChatCompletion(), (e: unknown) => e instanceof OpenAI.APIUserAbortError);
    assert.deepEqual(texts, ['Hel']);
    await fake.waitFor((r) => r.at(-1)!.closedEarly);
  });
});

describe('the official @anthropic-ai/sdk client reads the fake anthropic provider', () => {
  let fake: FakeProvider;
  let client: Anthropic;
  before(async () => {
    fake = await new FakeProvider('anthropic').start();
    client = new Anthropic({ baseURL: fake.baseUrl, apiKey: 'sk-ant-fidelity', maxRetries: 0 });
  });
  after(() => fake.close());

  const request = { model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'hi' }] };

  test('thinking with its signature, text, parallel tool uses and cache usage assemble into one message', async () => {
    fake.enqueue(FULL);
    const stream = client.messages.stream(request);
    const thinking: string[] = [];
    stream.on('thinking', (delta) => thinking.push(delta));
    const message = await stream.finalMessage();
    assert.deepEqual(thinking, ['Two tools ', 'at once.']);
    assert.deepEqual(message.content, [
      { type: 'thinking', thinking: 'Two tools at once.', signature: fakeSignature('Two tools at once.') },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_a1', name: 'bash', input: { command: 'echo one' } },
      { type: 'tool_use', id: 'call_b2', name: 'session-status', input: {} },
    ]);
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal(message.usage.input_tokens, 100);
    assert.equal(message.usage.cache_read_input_tokens, 1000);
    assert.equal(message.usage.cache_creation_input_tokens, 100);
    assert.equal(message.usage.output_tokens, 40);
    const headers = fake.requests.at(-1)!.headers;
    assert.equal(headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, ''), 'sk-ant-fidelity');
  });

  test('a plain text answer ends with message_stop and end_turn', async () => {
    fake.enqueue(TEXT);
    const message = await client.messages.stream(request).finalMessage();
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello there' }]);
    assert.equal(message.stop_reason, 'end_turn');
  });

  test('429 with Retry-After is a RateLimitError the client retries after the wait', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '1' }, message: 'Number of request tokens has exceeded your rate limit' });
    await assert.rejects(
      client.messages.create({ ...request, stream: true }),
      (e: unknown) => e instanceof Anthropic.RateLimitError && /exceeded your rate limit/.test(e.message),
    );
    fake.enqueue({ status: 429, headers: { 'retry-after': '1' } }, TEXT);
    const retrying = new Anthropic({ baseURL: fake.baseUrl, apiKey: 'k', maxRetries: 1 });
    const started = Date.now();
    const message = await retrying.messages.stream(request).finalMessage();
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello there' }]);
    assert.ok(Date.now() - started >= 900, 'the client waited for Retry-After');
  });

  test('500 is an InternalServerError', async () => {
    fake.enqueue({ status: 500, message: 'Internal server error' });
    await assert.rejects(client.messages.create({ ...request, stream: true }), (e: unknown) => e instanceof Anthropic.InternalServerError && e.status === 500);
  });

  test('a malformed event breaks the stream', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'malformed', afterEvents: 3 } });
    await assert.rejects(client.messages.stream(request).finalMessage());
  });

  test('an in-stream error event is an APIError naming its type', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'error', afterEvents: 3 } });
    await assert.rejects(client.messages.stream(request).finalMessage(), (e: unknown) => e instanceof Anthropic.APIError && /overloaded_error/.test(e.message));
  });

  test('a disconnect mid-stream breaks it', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'disconnect', afterEvents: 3 } });
    await assert.rejects(client.messages.stream(request).finalMessage());
  });

  test('a stall mid-stream leaves the client waiting until it aborts, and the abort closes the socket', async () => {
    fake.enqueue({ ...TEXT, fault: { kind: 'stall', afterEvents: 4 } });
    const stream = client.messages.stream(request);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    setTimeout(() => stream.abort(), 300);
    await assert.rejects(stream.finalMessage());
    assert.deepEqual(texts, ['Hel']);
    await fake.waitFor((r) => r.at(-1)!.closedEarly);
  });
});

describe('the official openai client reads the fake Responses provider (the wire Codex speaks)', () => {
  let fake: FakeProvider;
  let client: OpenAI;
  before(async () => {
    fake = await new FakeProvider('responses', { headers: codexWindowHeaders(1_800_000_000) }).start();
    client = new OpenAI({ baseURL: fake.baseUrl, apiKey: 'sk-responses', maxRetries: 0 });
  });
  after(() => fake.close());

  test('reasoning, text, function calls (one under an MCP namespace) and usage assemble into one response', async () => {
    fake.enqueue({ ...FULL, toolCalls: [FULL.toolCalls![0]!, { id: 'call_c3', name: 'session_status', namespace: 'mcp__murmur', input: {} }] });
    const stream = client.responses.stream({ model: 'gpt-fake', input: 'hi' });
    const reasoning: string[] = [];
    stream.on('response.reasoning_summary_text.delta', (event) => reasoning.push(event.delta));
    const response = await stream.finalResponse();
    assert.deepEqual(reasoning, ['Two tools ', 'at once.']);
    const texts = response.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((c) => (c.type === 'output_text' ? [c.text] : [])) : []));
    assert.deepEqual(texts, ['Let me check.']);
    const calls = response.output.flatMap((item) =>
      item.type === 'function_call' ? [[item.call_id, item.name, JSON.parse(item.arguments), (item as { namespace?: string }).namespace ?? null]] : [],
    );
    assert.deepEqual(calls, [
      ['call_a1', 'bash', { command: 'echo one' }, null],
      ['call_c3', 'session_status', {}, 'mcp__murmur'],
    ]);
    assert.equal(response.usage?.input_tokens, 1200);
    assert.equal(response.usage?.input_tokens_details.cached_tokens, 1000);
    assert.equal(response.usage?.output_tokens, 40);
    assert.equal(fake.requests.at(-1)!.headers.authorization, 'Bearer sk-responses');
  });

  test('the rate-limit windows Codex reads ride every answer as x-codex-* headers', async () => {
    fake.enqueue(TEXT);
    const { data, response } = await client.responses.create({ model: 'gpt-fake', input: 'hi', stream: true }).withResponse();
    for await (const _ of data) {
      // drained
    }
    assert.equal(response.headers.get('x-codex-primary-used-percent'), '42.5');
    assert.equal(response.headers.get('x-codex-primary-window-minutes'), '300');
    assert.equal(response.headers.get('x-codex-primary-reset-at'), String(1_800_000_000 + 3600));
    assert.equal(response.headers.get('x-codex-secondary-window-minutes'), '10080');
  });
});

describe('the official @anthropic-ai/sdk client reads the rate-limit windows Claude Code reports', () => {
  let fake: FakeProvider;
  before(async () => {
    fake = await new FakeProvider('anthropic', { headers: anthropicWindowHeaders(1_800_000_000) }).start();
  });
  after(() => fake.close());

  test('anthropic-ratelimit-unified-* headers ride every answer', async () => {
    fake.enqueue(TEXT);
    const client = new Anthropic({ baseURL: fake.baseUrl, apiKey: 'k', maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model: 'claude-fake', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], stream: true })
      .withResponse();
    for await (const _ of data) {
      // drained
    }
    assert.equal(response.headers.get('anthropic-ratelimit-unified-status'), 'allowed_warning');
    assert.equal(response.headers.get('anthropic-ratelimit-unified-5h-utilization'), '0.42');
    assert.equal(response.headers.get('anthropic-ratelimit-unified-5h-reset'), String(1_800_000_000 + 3600));
    assert.equal(response.headers.get('anthropic-ratelimit-unified-7d-utilization'), '0.1');
  });
});
