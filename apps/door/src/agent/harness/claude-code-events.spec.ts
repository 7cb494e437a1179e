import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClaudeCodeEventReader } from './claude-code-events.js';

const stream = (event: Record<string, unknown>) => ({ type: 'stream_event', event });

test('a turn: its start with the cache counted in input, its text and thinking, its stop with the output and the ids', () => {
  const reader = new ClaudeCodeEventReader();
  assert.deepEqual(reader.read({ type: 'system', subtype: 'init', session_id: 's-1' }), [{ kind: 'session', id: 's-1' }]);
  assert.deepEqual(reader.read({ type: 'system', subtype: 'status', session_id: 's-1' }), []);
  assert.deepEqual(
    reader.read(
      stream({
        type: 'message_start',
        message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 } },
      }),
    ),
    [{ kind: 'turn-start' }],
  );
  assert.deepEqual(reader.read(stream({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } })), [
    { kind: 'thinking', text: 'hm' },
  ]);
  assert.deepEqual(reader.read(stream({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'hi' } })), [{ kind: 'text', text: 'hi' }]);
  assert.deepEqual(reader.read(stream({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{' } })), []);
  assert.deepEqual(reader.read(stream({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } })), []);
  assert.deepEqual(reader.read(stream({ type: 'message_stop' })), [
    { kind: 'turn-end', usage: { input: 115, cached: 100, cacheWrite: 5, output: 7 }, stop: 'tool_use', responseId: 'msg_1', responseModel: 'm' },
  ]);
});

test('the tools of its own start and end; a tool-server call is the tool server’s to report, its result too', () => {
  const reader = new ClaudeCodeEventReader();
  const assistant = {
    type: 'assistant',
    message: {
      content: [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
        { type: 'tool_use', id: 't2', name: 'mcp__murmur__session-status', input: {} },
      ],
    },
  };
  assert.deepEqual(reader.read(assistant), [{ kind: 'tool-start', id: 't1', name: 'Bash', input: { command: 'ls' } }]);
  const user = {
    type: 'user',
    message: {
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a' }, { type: 'image' }], is_error: true },
        { type: 'tool_result', tool_use_id: 't2', content: 'status' },
      ],
    },
  };
  assert.deepEqual(reader.read(user), [{ kind: 'tool-end', id: 't1', output: 'a\n[image]', isError: true, exitCode: null }]);
});

test('its windows, as seed 004 names and measures them, and its predicted prompt', () => {
  const reader = new ClaudeCodeEventReader();
  const info = {
    status: 'allowed',
    unifiedWindows: {
      five_hour: { utilization: 0.42, resetsAt: 1_800_000_000, status: 'allowed_warning' },
      seven_day: { utilization: 1.5, resetsAt: 1_800_086_400, status: 'rejected' },
    },
  };
  assert.deepEqual(reader.read({ type: 'rate_limit_event', rate_limit_info: info }), [
    {
      kind: 'quota',
      windows: [
        { name: 'five-hour', used: 0.42, resetsAt: '2027-01-15T08:00:00Z', windowMinutes: 300, state: 'warning' },
        { name: 'seven-day', used: 1, resetsAt: '2027-01-16T08:00:00Z', windowMinutes: 10080, state: 'exhausted' },
      ],
    },
  ]);
  assert.deepEqual(reader.read({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed' } }), [], 'a plain API key reports no windows');
  assert.deepEqual(reader.read({ type: 'prompt_suggestion', suggestion: 'run the tests' }), [{ kind: 'suggestion', text: 'run the tests' }]);
});

test('the result: an answer, its turns used up, a failure in its words, a resume it refused', () => {
  const reader = new ClaudeCodeEventReader();
  assert.deepEqual(reader.read({ type: 'result', subtype: 'success', is_error: false, result: 'done' }), [{ kind: 'answer', text: 'done' }]);
  assert.deepEqual(reader.read({ type: 'result', subtype: 'error_max_turns' }), [
    { kind: 'failure', message: 'it used all the turns it was given', maxTurns: true },
  ]);
  assert.deepEqual(reader.read({ type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['API Error: 500', 'then gave up'] }), [
    { kind: 'failure', message: 'API Error: 500; then gave up' },
  ]);
  assert.deepEqual(reader.read({ type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['No conversation found with session ID: x'] }), [
    { kind: 'failure', message: 'No conversation found with session ID: x', resumeRefused: true },
  ]);
  assert.deepEqual(reader.read({ type: 'result', subtype: 'mystery' }), [{ kind: 'failure', message: 'its run ended mystery' }]);
});

test('usage is the sandbox’s word: a negative, fractional or unsafe count is not reported, and a line printed mid-turn never lowers a count', () => {
  const reader = new ClaudeCodeEventReader();
  reader.read(stream({ type: 'message_start', message: { usage: { input_tokens: -1_000_000, cache_read_input_tokens: 0.5 } } }));
  reader.read(stream({ type: 'message_delta', usage: { output_tokens: 2 ** 60 } }));
  assert.deepEqual(reader.read(stream({ type: 'message_stop' })), [{ kind: 'turn-end', usage: null, stop: 'end_turn' }]);

  reader.read(stream({ type: 'message_start', message: { usage: { input_tokens: 50_000 } } }));
  // What a command of the run's could print into the stream between the turn's own lines.
  reader.read(stream({ type: 'message_start', message: { usage: { input_tokens: 1 } } }));
  reader.read(stream({ type: 'message_delta', usage: { output_tokens: 900 } }));
  reader.read(stream({ type: 'message_delta', usage: { output_tokens: 1 } }));
  assert.deepEqual(reader.read(stream({ type: 'message_stop' })), [
    { kind: 'turn-end', usage: { input: 50_000, cached: 0, cacheWrite: 0, output: 900 }, stop: 'end_turn' },
  ]);
});
